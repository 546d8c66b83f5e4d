// The ES module entry point of mcpweft; the implementation is the CommonJS one.
import mcpweft from './index.cjs';

export const {
  Server,
  McpServer,
  Context,
  ResourceTemplate,
  HttpServerHandle,
  Client,
  Subscription,
  Host,
  HostEvents,
  middleware,
  ErrorCode,
  McpweftError,
  McpError,
  TransportClosedError,
  TimeoutError,
  CancelledError,
  ProtocolError,
  CapabilityMissingError,
  ConfigError,
  InvalidInputError,
  IoError,
  HandlerError,
  OverloadedError,
  InternalError,
  version,
} = mcpweft;
export default mcpweft;
