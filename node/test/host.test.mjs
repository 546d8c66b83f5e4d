// A host over three real servers at once: the Rust calculator over stdio, the Python calculator
// over Streamable HTTP, the official reference server (@modelcontextprotocol/server-everything)
// over stdio, and a server that cannot start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, Host, InvalidInputError, McpError, Server, TimeoutError } from '../index.mjs';
import { hostServers, next, requireServers, servePythonCalculator, waitFor } from './helpers.mjs';

/** The first event of `events` that `wanted` accepts, within `ms`. */
async function nextEvent(events, wanted, ms = 20000) {
  const deadline = Date.now() + ms;
  for (;;) {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('no event came in time')), Math.max(deadline - Date.now(), 1));
    });
    try {
      const { value, done } = await Promise.race([events.next(), late]);
      assert.ok(!done, 'the events ended');
      if (wanted(value)) return value;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Resolves as `promise` does, or rejects when it takes longer than `ms`. */
function within(promise, ms = 20000) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('nothing came in time')), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const text = (result) => result.content[0].text;

test('a host of three real servers and one that cannot start', { timeout: 180000 }, async (t) => {
  requireServers();
  const python = await servePythonCalculator();
  t.after(() => python.child.kill());
  const pidfile = join(mkdtempSync(join(tmpdir(), 'mcpweft-host-')), 'rust.pid');
  const sampled = [];
  const host = await Host.connect(
    {
      mcpServers: {
        rust: { command: 'sh', args: ['-c', `echo $$ > "${pidfile}"; exec "${hostServers.rust}"`] },
        python: { type: 'http', url: python.url },
        everything: { command: process.execPath, args: [hostServers.everything, 'stdio'] },
        broken: { command: process.execPath, args: ['-e', "console.error('no API key given'); process.exit(2)"] },
      },
    },
    {
      name: 'node-host-test',
      sampling: async (params, ctx) => {
        sampled.push({ server: ctx.server, params });
        return { role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'test' };
      },
    },
  );
  t.after(() => host.close());

  const servers = host.servers();
  assert.deepEqual(
    servers.map(({ name, state }) => [name, state]),
    [
      ['rust', 'ready'],
      ['python', 'ready'],
      ['everything', 'ready'],
      ['broken', 'failed'],
    ],
  );
  assert.match(host.state('broken').stderr, /no API key given/);
  assert.throws(() => host.state('nobody'), ConfigError);

  // Namespaced tools of each server, called on each.
  const tools = new Map(host.tools().map((tool) => [tool.name, tool.server]));
  for (const [server, tool] of [
    ['rust', 'add'],
    ['python', 'add'],
    ['everything', 'get-sum'],
    ['everything', 'echo'],
  ]) {
    assert.equal(tools.get(`${server}__${tool}`), server);
  }
  // Both calculators list the same resources: the host offers neither and reads them from the
  // server named.
  assert.deepEqual(host.collisions(), [
    { kind: 'resource', name: 'calc://constants', servers: ['rust', 'python'] },
    { kind: 'resourceTemplate', name: 'calc://constants/{name}', servers: ['rust', 'python'] },
  ]);
  assert.deepEqual((await host.callTool('rust__add', { a: 2, b: 3 })).structuredContent, { sum: 5 });
  assert.deepEqual((await host.callTool('python__add', { a: 2, b: 3 })).structuredContent, { sum: 5 });
  assert.equal(text(await host.callTool('everything__get-sum', { a: 2, b: 3 })), 'The sum of 2 and 3 is 5.');
  assert.equal(text(await host.callTool('everything__echo', { message: 'hi' })), 'Echo: hi');
  const constants = await host.readResource('calc://constants', { server: 'python' });
  assert.match(constants.contents[0].text, /"pi"/);
  const prompt = await host.getPrompt('rust__explain', { expression: '2+3' });
  assert.match(prompt.messages[0].content.text, /2\+3/);

  // The handlers and listeners are told which server asks.
  const logged = new Promise((resolve) => {
    const hear = (message, server) => {
      if (server !== 'rust') return;
      host.off('log', hear);
      resolve(message);
    };
    host.on('log', hear);
  });
  await host.callTool('rust__count', { n: 1 });
  assert.equal((await within(logged)).data, 'step 1 of 1');
  await waitFor(() => host.tools().some((tool) => tool.name === 'everything__trigger-sampling-request'), 20000);
  const answer = await host.callTool('everything__trigger-sampling-request', { prompt: 'hello', maxTokens: 5 });
  assert.match(text(answer), /a sampled answer/);
  assert.equal(sampled[0].server, 'everything');
  assert.equal(sampled[0].params.maxTokens, 5);

  // A list change: the reference server lists a resource it makes.
  const events = host.events();
  t.after(() => events.close());
  const changed = next(host, 'listChanged');
  const made = await host.callTool('everything__gzip-file-as-resource', {
    name: 'hello.txt.gz',
    data: 'data:text/plain;base64,aGVsbG8=',
    outputType: 'resourceLink',
  });
  assert.notEqual(made.isError, true, JSON.stringify(made));
  assert.deepEqual(await within(changed), { type: 'listChanged', server: 'everything', list: 'resources' });
  const resource = host.resources().find((r) => r.uri === 'demo://resource/session/hello.txt.gz');
  assert.equal(resource?.server, 'everything');

  // A long call kept alive by progress past its time-out; the total limit still ends one.
  const progress = [];
  const longCall = 'everything__trigger-long-running-operation';
  const done = await host.callTool(longCall, { duration: 2, steps: 8 }, { timeoutMs: 1000, onprogress: (p) => progress.push(p.progress) });
  assert.match(text(done), /Long running operation completed/);
  await waitFor(() => progress.length === 8);
  await assert.rejects(host.callTool(longCall, { duration: 3, steps: 6 }, { timeoutMs: 1000, maxTotalTimeoutMs: 800 }), TimeoutError);
  await assert.rejects(host.callTool('rust__add', { a: 1, b: 1 }, { timeoutMs: -1 }), InvalidInputError);

  // The Rust server killed mid-session is started again, and calls work again.
  process.kill(Number(readFileSync(pidfile, 'utf8')), 'SIGKILL');
  const gone = await nextEvent(events, (e) => e.server === 'rust');
  assert.equal(gone.state, 'connecting');
  const back = await nextEvent(events, (e) => e.server === 'rust');
  assert.deepEqual(back, { type: 'stateChanged', server: 'rust', state: 'ready' });
  assert.deepEqual((await host.callTool('rust__add', { a: 20, b: 22 })).structuredContent, { sum: 42 });

  // A failed server is tried again on demand, and fails the same way.
  host.restart('broken');
  const retried = await nextEvent(events, (e) => e.server === 'broken' && e.state === 'failed');
  assert.match(retried.stderr, /no API key given/);

  await host.close();
  assert.deepEqual(new Set(host.servers().map((s) => s.state)), new Set(['closed']));
  const ends = [];
  for await (const event of events) ends.push(event);
  assert.ok(ends.some((e) => e.server === 'python' && e.state === 'closed'), JSON.stringify(ends));
});

test('a host reads a file and refuses bad settings', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'mcpweft-host-')), 'servers.json');
  writeFileSync(path, JSON.stringify({ mcpServers: { off: { command: '${NO_SUCH_SERVER:-true}', enabled: false } } }));
  const host = await Host.connect(path, { separator: '.' });
  assert.deepEqual(host.servers(), [{ name: 'off', state: 'disabled' }]);
  assert.deepEqual(host.tools(), []);
  assert.throws(() => host.restart('off'), ConfigError);
  await host.close();
  await assert.rejects(Host.connect({ calc: { command: 'calc' } }, { separator: '/' }), ConfigError);
  await assert.rejects(Host.connect(`${path}.missing`), ConfigError);
  assert.throws(() => new Host(), TypeError);
});

test('a host runs tool calls as tasks on the server that offers them', async () => {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const server = new Server({ name: 'jobs', version: '1' }, { tasks: true });
  const schema = { type: 'object', properties: { n: { type: 'number' } } };
  server.registerTool('slow', { inputSchema: schema, execution: { taskSupport: 'optional' } }, async ({ n }) => {
    await released;
    return `${n * 2}`;
  });
  server.registerTool('forever', { execution: { taskSupport: 'required' } }, () => new Promise(() => {}));
  server.registerTool('plain', {}, () => 'plain');
  const http = await server.serveHttp({ port: 0 });
  const host = await Host.connect({ jobs: { type: 'http', url: http.url } });
  try {
    const task = await host.callToolAsTask('jobs__slow', { n: 21 }, { ttl: 60000 });
    assert.equal(task.server, 'jobs');
    assert.equal(task.status, 'working');
    assert.equal((await host.getTask('jobs', task.taskId)).status, 'working');
    release();
    const result = await host.getTaskResult('jobs', task.taskId, { timeoutMs: 5000 });
    assert.equal(result.content[0].text, '42');

    const endless = await host.callToolAsTask('jobs__forever');
    assert.equal((await host.cancelTask(endless.server, endless.taskId)).status, 'cancelled');
    await assert.rejects(host.callToolAsTask('jobs__plain'), McpError);
    await assert.rejects(host.getTask('nobody', task.taskId), ConfigError);
  } finally {
    await host.close();
    await http.close();
  }
});
