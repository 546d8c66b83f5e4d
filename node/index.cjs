'use strict';
// mcpweft: Model Context Protocol servers, clients and hosts for Node, backed by a Rust core.

const native = require('./lib/native.cjs');
const errors = require('./lib/errors.cjs');
const { Server, Context, ResourceTemplate, HttpServerHandle } = require('./lib/server.cjs');
const { Client, Subscription } = require('./lib/client.cjs');
const { Host, HostEvents } = require('./lib/host.cjs');
const { middleware } = require('./lib/middleware.cjs');

module.exports = {
  Server,
  // The TypeScript SDK's name for the same class: `new McpServer({ name, version }, options)`.
  McpServer: Server,
  Context,
  ResourceTemplate,
  HttpServerHandle,
  Client,
  Subscription,
  Host,
  HostEvents,
  middleware,
  ErrorCode: errors.ErrorCode,
  McpweftError: errors.McpweftError,
  McpError: errors.McpError,
  TransportClosedError: errors.TransportClosedError,
  TimeoutError: errors.TimeoutError,
  CancelledError: errors.CancelledError,
  ProtocolError: errors.ProtocolError,
  CapabilityMissingError: errors.CapabilityMissingError,
  ConfigError: errors.ConfigError,
  InvalidInputError: errors.InvalidInputError,
  IoError: errors.IoError,
  HandlerError: errors.HandlerError,
  OverloadedError: errors.OverloadedError,
  InternalError: errors.InternalError,
  version: native.version(),
};
