// The ES module entry point of mcpkit; the implementation is the CommonJS one.
import mcpkit from './index.cjs';

export const {
  Server,
  Context,
  ResourceTemplate,
  HttpServerHandle,
  Client,
  ErrorCode,
  McpkitError,
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
} = mcpkit;
export default mcpkit;
