// The client API beyond calls: pages, errors, notifications and the entry points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as esm from '../index.mjs';
import { Client, ErrorCode, IoError, InvalidInputError, McpError, McpweftError, Server, TimeoutError } from '../index.mjs';
import { connect, next } from './helpers.mjs';

const require = createRequire(import.meta.url);

test('pages can be iterated and listed whole', async () => {
  const server = new Server({ name: 'pages', version: '1' }, { pageSize: 2 });
  for (const n of [1, 2, 3, 4, 5]) server.registerTool(`t${n}`, {}, () => n);
  const client = await connect(server);
  const pages = [];
  for await (const page of client.pages('tools')) pages.push(page.tools.map((t) => t.name));
  assert.deepEqual(pages, [['t1', 't2'], ['t3', 't4'], ['t5']]);
  assert.equal((await client.listAll('tools')).length, 5);
  const first = await client.listTools();
  assert.equal((await client.listTools({ cursor: first.nextCursor })).tools[0].name, 't3');
  await assert.rejects(client.list('nonsense'), InvalidInputError);
  await client.close();
});

test('errors come as classes with kinds, codes and causes', async () => {
  const spawnFailure = await Client.connectStdio({ command: '/nonexistent/mcp-server' }).catch((e) => e);
  assert.ok(spawnFailure instanceof IoError);
  assert.ok(spawnFailure instanceof McpweftError);
  assert.equal(spawnFailure.kind, 'io');
  let cause = spawnFailure.cause;
  const causes = [];
  while (cause !== undefined) {
    causes.push(cause.message);
    cause = cause.cause;
  }
  assert.ok(causes.some((c) => c.includes('/nonexistent/mcp-server')), causes);
  await assert.rejects(Client.connect({ type: 'carrier-pigeon' }), InvalidInputError);

  const server = new Server({ name: 'errors', version: '1' });
  server.registerTool('sleep', {}, () => new Promise((resolve) => setTimeout(resolve, 500)));
  const client = await connect(server, { requestTimeoutMs: 5000 });
  await assert.rejects(client.request('no/such/method'), (error) => {
    assert.ok(error instanceof McpError);
    assert.equal(error.code, ErrorCode.MethodNotFound);
    return true;
  });
  await assert.rejects(client.callTool('sleep', {}, { timeout: 20 }), TimeoutError);
  await assert.rejects(client.callTool('sleep', {}, { timeout: Infinity }), InvalidInputError);
  await client.close();
});

test('the error codes are the bridge table', async () => {
  const native = require('../mcpweft.node');
  assert.deepEqual(ErrorCode, JSON.parse(native.errorCodes()));
  assert.equal(ErrorCode.UrlElicitationRequired, -32042);
});

test('any notification arrives as an event', async () => {
  const server = new Server({ name: 'notes', version: '1' });
  server.registerTool('note', {}, (_args, ctx) => {
    ctx.notify('notifications/custom', { n: 1 });
    return 'ok';
  });
  const client = await connect(server);
  const custom = next(client, 'notifications/custom');
  const any = next(client, 'notification');
  await client.callTool('note', {});
  assert.deepEqual(await custom, { n: 1 });
  assert.equal((await any).method, 'notifications/custom');
  client.on('notification', () => {
    throw new Error('a throwing listener');
  });
  await client.callTool('note', {});
  assert.deepEqual(await client.ping(), {}, 'a throwing listener harms nothing');
  await client.close();
});

test('the ES module and CommonJS entry points are one package', () => {
  const cjs = require('../index.cjs');
  assert.equal(esm.Server, cjs.Server);
  assert.equal(esm.Client, cjs.Client);
  assert.equal(esm.default, cjs);
  assert.equal(cjs.version, '0.1.0');
  assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), Object.keys(cjs).sort());
  assert.throws(() => new Client(), TypeError);
});

test('a tool runs as a task: its state, its result and its cancellation, with meta carried along', async () => {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const server = new Server({ name: 'tasks', version: '1' }, { tasks: true });
  const schema = { type: 'object', properties: { n: { type: 'number' } } };
  const metas = [];
  server.registerTool('slow', { inputSchema: schema, execution: { taskSupport: 'optional' } }, async ({ n }, ctx) => {
    metas.push(ctx.meta?.trace);
    await released;
    return `${n * 2}`;
  });
  server.registerTool('forever', { execution: { taskSupport: 'required' } }, () => new Promise(() => {}));
  server.registerTool('plain', {}, () => 'plain');
  const client = await connect(server);
  try {
    const created = await client.callTool('slow', { n: 21 }, { task: { ttl: 60000 }, meta: { trace: 't1' } });
    const { taskId } = created.task;
    assert.equal(created.task.status, 'working');
    assert.equal((await client.getTask(taskId)).status, 'working');
    assert.deepEqual((await client.listAll('tasks')).map((t) => t.taskId), [taskId]);
    release();
    const result = await client.getTaskResult(taskId, { timeout: 5000 });
    assert.equal(result.content[0].text, '42');
    assert.equal((await client.getTask(taskId)).status, 'completed');
    // `_meta` reaches the handler of a call as a task and of an ordinary call alike.
    await client.callTool('slow', { n: 1 }, { meta: { trace: 't2' } });
    assert.deepEqual(metas, ['t1', 't2']);

    const endless = (await client.callTool('forever', {}, { task: {} })).task;
    const cancelled = await client.cancelTask(endless.taskId);
    assert.equal(cancelled.status, 'cancelled');
    await assert.rejects(client.callTool('plain', {}, { task: { ttl: 1000 } }), /cannot be called as a task/);
    await assert.rejects(client.getTask('no-such-task'), McpError);
  } finally {
    await client.close();
  }
});
