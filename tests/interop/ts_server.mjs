#!/usr/bin/env node
// Reference "calculator" MCP server written with the official TypeScript SDK.
//
// It mirrors the contract of mcpweft's `calculator_server` example exactly
// (same tools, resources, template and prompt, same behaviour) so that the
// Rust `calculator_client` can be tested against it, and so that ts_client.mjs
// can be checked against a known-good implementation.
//
// Speaks MCP over stdio. Nothing but protocol messages may go to stdout;
// diagnostics go to stderr.

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

// MCP's "resource not found" error code.
const RESOURCE_NOT_FOUND = -32002;
import { z } from 'zod';

const CONSTANTS = { pi: 3.141592653589793, e: 2.718281828459045 };

const mcp = new McpServer(
  { name: 'ts-calculator-server', version: '0.1.0' },
  {
    capabilities: {
      tools: {},
      resources: {},
      prompts: {},
      logging: {},
      completions: {},
    },
  },
);

// Returns a result carrying `value` both as structuredContent and as a text
// block holding the same JSON.
function structured(value) {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value,
  };
}

mcp.registerTool(
  'add',
  {
    description: 'Add two numbers.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  },
  async ({ a, b }) => structured({ sum: a + b }),
);

mcp.registerTool(
  'divide',
  {
    description: 'Divide a by b. Dividing by zero is a tool error.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { quotient: z.number() },
  },
  async ({ a, b }) => {
    if (b === 0) {
      return { isError: true, content: [{ type: 'text', text: 'division by zero' }] };
    }
    return structured({ quotient: a / b });
  },
);

mcp.registerTool(
  'count',
  {
    description: 'Count from 1 to n, reporting progress and logging each step.',
    inputSchema: { n: z.number().int() },
  },
  async ({ n }, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: i, total: n, message: `step ${i} of ${n}` },
        });
      }
      // notifications/message, filtered by the level set with logging/setLevel.
      await mcp.server.sendLoggingMessage(
        { level: 'info', logger: 'calculator', data: `step ${i} of ${n}` },
        extra.sessionId,
      );
    }
    return { content: [{ type: 'text', text: `counted to ${n}` }] };
  },
);

mcp.registerResource(
  'constants',
  'calc://constants',
  { description: 'Mathematical constants', mimeType: 'application/json' },
  async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(CONSTANTS) }],
  }),
);

mcp.registerResource(
  'constant',
  new ResourceTemplate('calc://constants/{name}', {
    list: undefined,
    complete: {
      name: (value) => Object.keys(CONSTANTS).filter((k) => k.startsWith(value ?? '')),
    },
  }),
  { description: 'A single mathematical constant by name', mimeType: 'text/plain' },
  async (uri, { name }) => {
    const key = Array.isArray(name) ? name[0] : name;
    if (!Object.hasOwn(CONSTANTS, key)) {
      throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.href}`, { uri: uri.href });
    }
    return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(CONSTANTS[key]) }] };
  },
);

mcp.registerPrompt(
  'explain',
  {
    description: 'Ask for a step-by-step explanation of an arithmetic expression.',
    argsSchema: { expression: z.string() },
  },
  ({ expression }) => ({
    messages: [
      {
        role: 'user',
        content: { type: 'text', text: `Explain step by step how to compute ${expression}.` },
      },
    ],
  }),
);

const transport = new StdioServerTransport();
await mcp.connect(transport);
process.stderr.write('ts-calculator-server: listening on stdio\n');

// Exit when the client closes our stdin.
process.stdin.on('end', () => {
  mcp.close().finally(() => process.exit(0));
});
