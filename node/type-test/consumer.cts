// Compiled by `tsc -b type-test`: a TypeScript consumer of the CommonJS entry point.
import mcpkit = require('mcpkit');

const server = new mcpkit.Server({ name: 'cjs', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { type: 'object' } }, (args) => args);
export const serving: Promise<void> = server.serveStdio();
export const error: mcpkit.McpError = new mcpkit.McpError(mcpkit.ErrorCode.InternalError, 'x');
