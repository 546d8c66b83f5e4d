// The benchmark's echo server written with the official TypeScript SDK (McpServer).
//
// `node sdk_echo.mjs` serves stdio; `node sdk_echo.mjs --http PORT` serves Streamable HTTP at
// http://127.0.0.1:PORT/mcp. Over HTTP the sessions stay stateful (the benchmark's client
// expects an Mcp-Session-Id), one McpServer and transport per session as the SDK's examples
// do, and replies are plain JSON rather than an SSE stream per request, as mcpweft's HTTP
// servers send them.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'ts-sdk-echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns the given text unchanged.', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

const http = process.argv.indexOf('--http');
if (http === -1) {
  await build().connect(new StdioServerTransport());
} else {
  const sessions = new Map();
  createServer(async (req, res) => {
    let transport = sessions.get(req.headers['mcp-session-id']);
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    await transport.handleRequest(req, res);
  }).listen(Number(process.argv[http + 1]), '127.0.0.1');
}
