'use strict';
// The error classes of the package, built from the bridge's flat error
// ({ kind, code, message, data, causes }) that the native module hands over as JSON.

const native = require('./native.cjs');

/** The JSON-RPC error codes MCP uses, from the bridge's table. */
const ErrorCode = Object.freeze(JSON.parse(native.errorCodes()));

/** Every error mcpweft raises; `kind` is the bridge's stable kind name. */
class McpweftError extends Error {
  constructor(message, { kind = 'internal', code, data, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.kind = kind;
    if (code !== undefined) this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** A JSON-RPC error: one the peer answered with, or one a handler throws to answer with it. */
class McpError extends McpweftError {
  constructor(code, message, data) {
    super(message, { kind: 'rpc', code, data });
  }
}

const KINDS = {
  transport_closed: 'TransportClosedError',
  timeout: 'TimeoutError',
  cancelled: 'CancelledError',
  protocol: 'ProtocolError',
  capability_missing: 'CapabilityMissingError',
  config: 'ConfigError',
  invalid_input: 'InvalidInputError',
  io: 'IoError',
  handler: 'HandlerError',
  overloaded: 'OverloadedError',
  internal: 'InternalError',
};

const classes = { McpweftError, McpError };
for (const [kind, name] of Object.entries(KINDS)) {
  classes[name] = {
    [name]: class extends McpweftError {
      constructor(message, options = {}) {
        super(message, { ...options, kind });
      }
    },
  }[name];
}

/** Builds the chain of `cause`s from the messages of the underlying errors, outermost first. */
function causeChain(causes) {
  let cause;
  for (const message of [...(causes ?? [])].reverse()) cause = new Error(message, cause === undefined ? undefined : { cause });
  return cause;
}

/** Turns the JSON text of a bridge error into the error class of its kind. */
function fromNative(json) {
  const flat = JSON.parse(json);
  const cause = causeChain(flat.causes);
  if (flat.kind === 'rpc') {
    const error = new McpError(flat.code, flat.message, flat.data ?? undefined);
    if (cause !== undefined) error.cause = cause;
    return error;
  }
  const Class = classes[KINDS[flat.kind]] ?? McpweftError;
  return new Class(flat.message, { kind: flat.kind, cause });
}

/** Runs a synchronous native call, turning a bridge error it throws into its class. */
function sync(call) {
  try {
    return call();
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('{"kind":')) throw fromNative(error.message);
    throw error;
  }
}

/** Whether `error` chose a JSON-RPC error: ours, or one with the same shape (the TypeScript SDK's). */
function isRpcError(error) {
  return error instanceof McpError || (error instanceof Error && error.name === 'McpError' && Number.isInteger(error.code));
}

module.exports = { ErrorCode, ...classes, fromNative, sync, isRpcError };
