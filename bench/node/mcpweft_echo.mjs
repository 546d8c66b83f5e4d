// The benchmark's echo server written with mcpweft's Node package.
//
// `node mcpweft_echo.mjs` serves stdio; `node mcpweft_echo.mjs --http PORT` serves Streamable
// HTTP at http://127.0.0.1:PORT/mcp with mcpweft's defaults (stateful sessions, plain JSON
// replies when a handler sends nothing before its result).
import { Server } from '../../node/index.mjs';

const server = new Server({ name: 'mcpweft-node-echo', version: '1.0.0' });
server.registerTool(
  'echo',
  {
    description: 'Returns the given text unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text,
);

const http = process.argv.indexOf('--http');
if (http === -1) await server.serveStdio();
else await server.serveHttp({ host: '127.0.0.1', port: Number(process.argv[http + 1]) });
