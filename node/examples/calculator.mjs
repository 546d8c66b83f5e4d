// A small calculator MCP server: tools, a resource, a template, a prompt and completions.
//
// Mirrors core/examples/calculator_server.rs. Run it over stdio under any MCP client, or serve
// Streamable HTTP with `node calculator.mjs --http 8080` (at http://127.0.0.1:8080/mcp).
import { z } from 'zod';
import { ErrorCode, McpError, ResourceTemplate, Server } from 'mcpweft';

const CONSTANTS = { pi: Math.PI, e: Math.E };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = new Server(
  { name: 'calculator', version: '0.1.0' },
  { instructions: 'A calculator: use add and divide for arithmetic, count to see progress.' },
);
const operands = { a: z.number().describe('The first operand.'), b: z.number().describe('The second operand.') };

server.registerTool('add', { description: 'Adds two numbers.', inputSchema: operands, outputSchema: { sum: z.number() } }, ({ a, b }) => ({
  sum: a + b,
}));
server.registerTool(
  'divide',
  { description: 'Divides a by b.', inputSchema: operands, outputSchema: { quotient: z.number() } },
  ({ a, b }) => {
    if (b === 0) throw new Error('division by zero');
    return { quotient: a / b };
  },
);
server.registerTool(
  'count',
  { description: 'Counts to n, reporting progress and logging each step.', inputSchema: { n: z.number().int().describe('The number to count to.') } },
  async ({ n }, ctx) => {
    for (let i = 1; i <= n && !ctx.signal.aborted; i++) {
      await sleep(10);
      ctx.log('info', `step ${i} of ${n}`, 'calculator');
      ctx.progress(i, n);
    }
    return `counted to ${n}`;
  },
);
server.registerResource('constants', 'calc://constants', { description: 'Known constants.', mimeType: 'application/json' }, () => CONSTANTS);
server.registerResource(
  'constant',
  new ResourceTemplate('calc://constants/{name}', { complete: { name: (value) => Object.keys(CONSTANTS).filter((k) => k.startsWith(value)) } }),
  {},
  (uri, { name }) => {
    if (!(name in CONSTANTS)) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri.href}`);
    return String(CONSTANTS[name]);
  },
);
server.registerPrompt(
  'explain',
  { description: 'Asks the model to explain a calculation.', argsSchema: { expression: z.string().describe('What to compute.') } },
  ({ expression }) => `Explain step by step how to compute ${expression}.`,
);

const http = process.argv.indexOf('--http');
if (http === -1) await server.serveStdio();
else console.error(`serving MCP at ${(await server.serveHttp({ port: Number(process.argv[http + 1] ?? 8080) })).url}`);
