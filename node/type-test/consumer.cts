// Compiled by `tsc -b type-test`: a TypeScript consumer of the CommonJS entry point.
import mcpweft = require('mcpweft');

const server = new mcpweft.Server({ name: 'cjs', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { type: 'object' } }, (args) => args);
export const serving: Promise<void> = server.serveStdio();
export const error: mcpweft.McpError = new mcpweft.McpError(mcpweft.ErrorCode.InternalError, 'x');
const logged: mcpweft.Middleware = (message: mcpweft.MiddlewareMessage, next: mcpweft.Next) => next(message);
server.use(logged).use(mcpweft.middleware.rateLimit({ perSecond: 5 }));
