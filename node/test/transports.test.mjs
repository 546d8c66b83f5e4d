// Serving over Streamable HTTP (its own port, or inside node:http) and stdio, and what keeps
// the process alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client, Server } from '../index.mjs';
import { runNode } from './helpers.mjs';

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function calculator() {
  const server = new Server({ name: 'http-calculator', version: '1.0.0' });
  server.registerTool('add', { inputSchema: { type: 'object', properties: { a: {}, b: {} } } }, async ({ a, b }, ctx) => {
    ctx.progress(1, 1, 'adding');
    return a + b;
  });
  server.registerTool('whoami', {}, (_args, ctx) => ctx.sessionId ?? 'none');
  return server;
}

test('serveHttp serves its own port and connectHttp reaches it', async () => {
  const server = calculator();
  const http = await server.serveHttp({ port: 0, path: 'mcp', jsonResponse: false });
  assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const client = await Client.connectHttp(http.url, { headers: { 'x-test': '1' } }, { name: 'http-tester', version: '1' });
  assert.equal(client.serverInfo.name, 'http-calculator');
  const progress = [];
  const sum = await client.callTool('add', { a: 2, b: 40 }, { onProgress: (p) => progress.push(p.message) });
  assert.equal(sum.content[0].text, '42');
  assert.deepEqual(progress, ['adding']);
  const session = (await client.callTool('whoami', {})).content[0].text;
  assert.match(session, /^[0-9a-f]{32,}$/, 'a handler sees the HTTP session id');
  await client.close();
  await http.close();
  await http.closed;
  await http.close();
  await assert.rejects(server.serveHttp({ port: 0, colour: 'red' }), { name: 'InvalidInputError' });
});

test('httpHandler serves MCP inside a node:http server', async () => {
  const server = calculator();
  const handler = server.httpHandler({ path: '/mcp' });
  const host = createServer((req, res) => {
    if (req.url.startsWith('/mcp')) handler(req, res);
    else res.writeHead(404).end('not here');
  });
  await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${host.address().port}/mcp`;
  try {
    const client = await Client.connectHttp(url);
    const progress = [];
    const sum = await client.callTool('add', { a: 1, b: 2 }, { onProgress: (p) => progress.push(p.progress) });
    assert.equal(sum.content[0].text, '3');
    assert.deepEqual(progress, [1], 'progress travels on the SSE stream of the call');
    assert.equal((await client.listAll('tools')).length, 2);
    await client.close();
    const status = await new Promise((resolve, reject) => {
      const headers = { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const req = request(url, { method: 'POST', headers }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 403, 'the core checks the Host header');
  } finally {
    host.closeAllConnections();
    await new Promise((resolve) => host.close(resolve));
  }
});

test('httpHandler takes a body that a body parser already read', async () => {
  const server = calculator();
  const handler = server.httpHandler();
  const host = createServer(async (req, res) => {
    // What express.json() does: read the body, parse it, and leave it on req.body.
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString();
    req.body = text === '' ? {} : JSON.parse(text);
    req.originalUrl = req.url;
    handler(req, res);
  });
  await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
  try {
    const client = await Client.connectHttp(`http://localhost:${host.address().port}/mcp`);
    assert.equal((await client.callTool('add', { a: 5, b: 5 })).content[0].text, '10');
    await client.close();
  } finally {
    host.closeAllConnections();
    await new Promise((resolve) => host.close(resolve));
  }
});

test('serveStdio serves a client that spawned the process', async () => {
  const client = await Client.connectStdio({ command: process.execPath, args: [fixture('calculator.mjs')] });
  assert.equal(client.serverInfo.name, 'fixture-calculator');
  assert.deepEqual((await client.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 });
  await assert.rejects(client.callTool('fail', {}), { code: -32602, data: { why: 'fixture' } });
  const controller = new AbortController();
  const progress = [];
  const slow = client.callTool('slow', {}, {
    signal: controller.signal,
    onProgress: (p) => {
      progress.push(p.message);
      controller.abort();
    },
  });
  await assert.rejects(slow, { name: 'AbortError' });
  assert.deepEqual(progress, ['started']);
  await client.close();
});

test('closed servers and clients never keep the process alive', async () => {
  for (const mode of ['registered', 'http-closed', 'server-closed', 'in-process']) {
    const run = await runNode([fixture('lifecycle.mjs'), mode], { ms: 10000 });
    assert.equal(run.code, 0, `${mode}: ${run.stderr}`);
    assert.equal(run.stdout.trim(), 'done', mode);
  }
  const open = await runNode([fixture('lifecycle.mjs'), 'http-open'], { ms: 1500 });
  assert.equal(open.code, 'killed', 'an open HTTP server keeps the process alive');
});
