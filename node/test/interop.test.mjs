// Interoperability with the official TypeScript SDK (@modelcontextprotocol/sdk, the version
// tests/interop pins), both ways, over stdio and Streamable HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, McpError, Server } from '../index.mjs';
import { tsHttpServer } from './fixtures/ts_server.mjs';
import { waitFor } from './helpers.mjs';

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Checks a TypeScript SDK client against a server with the calculator fixture's tools. */
async function sdkClientChecks(sdk) {
  const { tools } = await sdk.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'fail', 'slow']);
  const sum = await sdk.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  assert.deepEqual(sum.structuredContent, { sum: 5 });
  await assert.rejects(sdk.callTool({ name: 'fail', arguments: {} }), { code: -32602 });
  const invalid = await sdk.callTool({ name: 'add', arguments: { a: 'x' } });
  assert.equal(invalid.isError, true);
  const controller = new AbortController();
  const progress = [];
  const slow = sdk.callTool({ name: 'slow', arguments: {} }, undefined, {
    signal: controller.signal,
    onprogress: (p) => {
      progress.push(p.progress);
      controller.abort();
    },
  });
  await assert.rejects(slow);
  assert.deepEqual(progress, [1]);
}

test('the TypeScript SDK client talks to an mcpweft server over stdio', async () => {
  const sdk = new SdkClient({ name: 'sdk-client', version: '1.0.0' });
  await sdk.connect(new StdioClientTransport({ command: process.execPath, args: [fixture('calculator.mjs')], stderr: 'inherit' }));
  assert.equal(sdk.getServerVersion().name, 'fixture-calculator');
  await sdkClientChecks(sdk);
  await sdk.close();
});

function calculator(cancelled) {
  const server = new Server({ name: 'node-calculator', version: '1.0.0' });
  server.registerTool(
    'add',
    { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
    ({ a, b }) => ({ sum: a + b }),
  );
  server.registerTool('fail', {}, () => {
    throw new McpError(-32602, 'no');
  });
  server.registerTool('slow', {}, async (_args, ctx) => {
    ctx.progress(1, 2);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    cancelled();
    return 'cancelled';
  });
  return server;
}

test('the TypeScript SDK client talks to an mcpweft server over Streamable HTTP, both ways of serving', async () => {
  let cancellations = 0;
  const server = calculator(() => cancellations++);
  const http = await server.serveHttp({ port: 0 });
  const sdk = new SdkClient({ name: 'sdk-client', version: '1.0.0' });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  assert.equal(sdk.getServerVersion().name, 'node-calculator');
  await sdkClientChecks(sdk);
  await waitFor(() => cancellations === 1);
  await sdk.close();
  await http.close();

  const { createServer } = await import('node:http');
  const handler = server.httpHandler();
  const host = createServer(handler);
  await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
  const mounted = new SdkClient({ name: 'sdk-client', version: '1.0.0' });
  await mounted.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${host.address().port}/mcp`)));
  await sdkClientChecks(mounted);
  await waitFor(() => cancellations === 2);
  await mounted.close();
  host.closeAllConnections();
  await new Promise((resolve) => host.close(resolve));
});

/** Checks an mcpweft client against the TypeScript SDK server of fixtures/ts_server.mjs. */
async function mcpweftClientChecks(client, cancellations) {
  assert.equal(client.serverInfo.name, 'ts-sdk-server');
  const tools = await client.listAll('tools');
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'ask', 'wait']);
  assert.equal(tools.find((t) => t.name === 'add').inputSchema.properties.a.type, 'number');
  const progress = [];
  const sum = await client.callTool('add', { a: 20, b: 22 }, { onProgress: (p) => progress.push(p.progress) });
  assert.equal(sum.content[0].text, '42');
  assert.deepEqual(progress, [1]);
  assert.equal((await client.callTool('ask', {})).content[0].text, 'model said hello');
  const read = await client.readResource('greeting://Ada');
  assert.equal(read.contents[0].text, 'Hello Ada');
  const prompt = await client.getPrompt('review', { code: 'x = 1' });
  assert.equal(prompt.messages[0].content.text, 'Review: x = 1');
  const controller = new AbortController();
  const waiting = client.callTool('wait', {}, { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(waiting, { name: 'AbortError' });
  if (cancellations !== undefined) await waitFor(() => cancellations() === 1);
}

const sampling = () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'test' });

test('an mcpweft client talks to a TypeScript SDK server over stdio', async () => {
  const client = await Client.connectStdio(
    { command: process.execPath, args: [fixture('ts_server.mjs'), '--stdio'] },
    { name: 'mcpweft-host', version: '1.0.0', sampling },
  );
  await mcpweftClientChecks(client);
  await client.close();
});

test('an mcpweft client talks to a TypeScript SDK server over Streamable HTTP', async () => {
  let cancelled = 0;
  const sdk = await tsHttpServer(() => cancelled++);
  const client = await Client.connectHttp(sdk.url, {}, { name: 'mcpweft-host', version: '1.0.0', sampling });
  await mcpweftClientChecks(client, () => cancelled);
  await client.close();
  await sdk.close();
});
