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

test('httpHandler answers a path it does not serve with a JSON-RPC error that names its own', async () => {
  const server = calculator();
  const post = (handler, path) =>
    new Promise((resolve, reject) => {
      const host = createServer(handler);
      host.listen(0, '127.0.0.1', () => {
        const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const initialize = {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        };
        const req = request(`http://127.0.0.1:${host.address().port}${path}`, { method: 'POST', headers }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => {
            host.closeAllConnections();
            host.close();
            resolve({ status: res.statusCode, type: res.headers['content-type'], body });
          });
        });
        req.on('error', reject);
        req.end(JSON.stringify(initialize));
      });
    });
  // A plain node:http server that hands every request to the default handler (path /mcp).
  const wrong = await post(server.httpHandler(), '/');
  assert.equal(wrong.status, 404);
  assert.match(wrong.type, /^application\/json/);
  const { error } = JSON.parse(wrong.body);
  assert.equal(error.code, -32600);
  assert.match(error.message, /^this MCP endpoint serves the path \/mcp, not \/: .*`path` option/);
  // With `path`, the handler serves where the application routes it.
  const right = await post(server.httpHandler({ path: '/api/mcp' }), '/api/mcp');
  assert.equal(right.status, 200, right.body);
  assert.equal(JSON.parse(right.body).result.serverInfo.name, 'http-calculator');
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

test('a server that exits early is reported with its exit code and stderr', async () => {
  await assert.rejects(Client.connectStdio({ command: process.execPath, args: [fixture('crash.mjs'), 'early'] }), {
    name: 'TransportClosedError',
    kind: 'transport_closed',
    message:
      'transport closed: the server process exited with code 3; its stderr ended with:\nstarting\nError: DATABASE_URL is not set',
  });
});

test('a client hears that its server exited: onerror, onclose, the close event and the errors of calls', async () => {
  const client = await Client.connectStdio({ command: process.execPath, args: [fixture('crash.mjs'), 'after-init'] });
  assert.equal(client.closeInfo, undefined);
  const heard = [];
  const errors = [];
  client.onclose = (info) => heard.push(['onclose', info]);
  client.onerror = (error) => errors.push(error);
  const [info] = await new Promise((resolve) => client.once('close', (...args) => resolve(args)));
  const message =
    'transport closed: the server process exited with code 3; its stderr ended with:\nstarting\nError: DATABASE_URL is not set';
  const expected = { reason: 'disconnected', message, exitCode: 3, stderr: 'starting\nError: DATABASE_URL is not set' };
  assert.deepEqual(info, expected);
  assert.deepEqual(heard, [['onclose', expected]], 'onclose runs once, before the event');
  assert.equal(errors.length, 1);
  assert.equal(errors[0].name, 'TransportClosedError');
  assert.equal(errors[0].message, message);
  assert.deepEqual(client.closeInfo, expected);
  await assert.rejects(client.callTool('anything', {}), { name: 'TransportClosedError', message });
  await client.close();
  assert.equal(heard.length, 1, 'closing afterwards tells nothing more');
});

test('onclose hears a close of this side, and onerror does not', async () => {
  const client = await Client.connectStdio({ command: process.execPath, args: [fixture('calculator.mjs')] });
  const errors = [];
  client.onerror = (error) => errors.push(error);
  const closed = new Promise((resolve) => {
    client.onclose = resolve;
  });
  await client.close();
  assert.deepEqual(await closed, { reason: 'closed', message: 'the client closed the connection' });
  assert.deepEqual(errors, []);
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
  for (const mode of ['registered', 'http-closed', 'server-closed', 'in-process', 'stdio-crashed']) {
    const run = await runNode([fixture('lifecycle.mjs'), mode], { ms: 10000 });
    assert.equal(run.code, 0, `${mode}: ${run.stderr}`);
    assert.equal(run.stdout.trim(), 'done', mode);
  }
  const open = await runNode([fixture('lifecycle.mjs'), 'http-open'], { ms: 1500 });
  assert.equal(open.code, 'killed', 'an open HTTP server keeps the process alive');
});
