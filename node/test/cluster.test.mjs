// Cluster mode from Node: two server processes share one session through Redis. The test runs
// tests/cluster/setup.sh (which installs redis-server when missing) and skips, naming the
// reason, when that fails; it starts Redis on a free loopback port and two Node processes
// serving HTTP with `cluster: { url }`, then speaks raw HTTP: `initialize` on one process,
// `tools/call` on the other with the session id the first one gave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const setup = fileURLToPath(new URL('../../tests/cluster/setup.sh', import.meta.url));
const entry = fileURLToPath(new URL('../index.mjs', import.meta.url));
const VERSION = '2025-11-25';

// One process of the cluster: its tool answers with the id of the process that ran it.
const member = `
import { Server } from ${JSON.stringify(entry)};
const server = new Server({ name: 'cluster-member', version: '1.0.0' });
server.registerTool('whoami', {}, () => String(process.pid));
const [port, url] = process.argv.slice(2);
await server.serveHttp({ port: Number(port), cluster: { url, prefix: 'node-test', commandTimeoutMs: 5000 } });
`;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Waits (at most 20 s) until `port` accepts connections, failing if `child` exits. */
async function waitForPort(port, child, what) {
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not listen on port ${port} within 20 s`);
}

/** POSTs one JSON-RPC message to /mcp on `port`; resolves with the response and its JSON body. */
async function post(port, body, session) {
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  if (session) Object.assign(headers, { 'mcp-session-id': session, 'mcp-protocol-version': VERSION });
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { response, body: text ? JSON.parse(text) : null };
}

const installed = spawnSync('sh', [setup], { encoding: 'utf8', timeout: 600000 });
const skip = installed.status === 0 ? false : `tests/cluster/setup.sh failed: ${(installed.stderr ?? '').trim()}`;

test('one session is served by two processes sharing it through Redis', { skip, timeout: 60000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpweft-cluster-'));
  const children = [];
  t.after(() => {
    for (const child of children) child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    cwd: dir,
    stdio: 'ignore',
  });
  children.push(redis);
  await waitForPort(redisPort, redis, 'redis-server');
  const script = join(dir, 'member.mjs');
  writeFileSync(script, member);
  const members = [];
  for (let i = 0; i < 2; i += 1) {
    const port = await freePort();
    const child = spawn(process.execPath, [script, String(port), `redis://127.0.0.1:${redisPort}/0`], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(child);
    await waitForPort(port, child, 'the cluster member');
    members.push({ port, pid: child.pid });
  }
  const [first, second] = members;

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const opened = await post(first.port, initialize);
  assert.equal(opened.response.status, 200);
  assert.equal(opened.body.result.serverInfo.name, 'cluster-member');
  const session = opened.response.headers.get('mcp-session-id');
  assert.ok(session);

  const initialized = await post(second.port, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  assert.equal(initialized.response.status, 202);
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
  const onSecond = await post(second.port, call, session);
  assert.equal(onSecond.response.status, 200);
  assert.equal(onSecond.body.result.content[0].text, String(second.pid));
  const onFirst = await post(first.port, { ...call, id: 3 }, session);
  assert.equal(onFirst.response.status, 200);
  assert.equal(onFirst.body.result.content[0].text, String(first.pid));
});
