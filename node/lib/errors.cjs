'use strict';
// The error classes of the package, built from the bridge's flat error
// ({ kind, code, message, data, causes }) that the native module hands over as JSON.

const native = require('./native.cjs');

/** The JSON-RPC error codes MCP uses, from the bridge's table. */
const ErrorCode = Object.freeze(JSON.parse(native.errorCodes()));

/** The bridge's table of error kinds: `{ name, code, meaning }` for each. */
const ERROR_KINDS = Object.freeze(JSON.parse(native.errorKinds()).map((row) => Object.freeze(row)));

/**
 * Every error mcpweft raises; `kind` is the bridge's stable kind name, `causes` the messages of
 * the underlying errors, outermost first (also chained as `cause`).
 */
class McpweftError extends Error {
  constructor(message, { kind = 'internal', code, data, cause, causes } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.kind = kind;
    if (code !== undefined) this.code = code;
    if (data !== undefined) this.data = data;
    this.causes = causes ?? causesOf(cause);
  }
}

/** The messages of an error's chain of `cause`s, outermost first (at most 32). */
function causesOf(cause) {
  const messages = [];
  for (let next = cause; next !== undefined && next !== null && messages.length < 32; next = next.cause) {
    messages.push(next instanceof Error ? next.message : String(next));
    if (typeof next !== 'object') break;
  }
  return messages;
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
  const causes = [...(flat.causes ?? [])];
  if (flat.kind === 'rpc') {
    const error = new McpError(flat.code, flat.message, flat.data ?? undefined);
    if (cause !== undefined) error.cause = cause;
    error.causes = causes;
    return error;
  }
  const Class = classes[KINDS[flat.kind]] ?? McpweftError;
  return new Class(flat.message, { kind: flat.kind, cause, causes });
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

/**
 * What a thrown value says about itself, for the bridge's one rule (`Error.from_foreign`):
 * its kind (`rpc` for a JSON-RPC error, ours or the TypeScript SDK's; the kind of any other
 * mcpweft error; `handler` for the rest), code, message, the JSON text of its data, and the
 * messages of its causes.
 */
function describe(error) {
  const kind = isRpcError(error) ? 'rpc' : error instanceof McpweftError ? error.kind : 'handler';
  const code = Number.isInteger(error?.code) ? error.code : null;
  const message = error instanceof Error ? String(error.message) : String(error);
  const data = error?.data === undefined ? null : (JSON.stringify(error.data) ?? null);
  const causes = error instanceof McpweftError ? [...error.causes] : causesOf(error?.cause);
  return [kind, code, message, data, causes];
}

module.exports = { ErrorCode, ERROR_KINDS, ...classes, fromNative, sync, isRpcError, describe };
