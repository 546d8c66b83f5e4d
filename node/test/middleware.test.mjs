// Middleware: JavaScript functions around what a server and a client receive and send (order,
// changes, early answers, failures with a code), and the core's built-in ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host, InvalidInputError, McpError, Server, middleware } from '../index.mjs';
import { connect, next as nextEvent, waitFor } from './helpers.mjs';

/** A server with an `echo` tool that returns its `text` argument, counting its calls. */
function echoServer() {
  const server = new Server({ name: 'echo', version: '1' });
  server.calls = 0;
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => {
    server.calls += 1;
    return text;
  });
  return server;
}

/** The text of a tool call's result. */
const textOf = (result) => result.content[0].text;

test('middleware run in the order they were added, the first outermost', async () => {
  const server = echoServer();
  const seen = [];
  const layer = (name) => async (message, next) => {
    if (message.method !== 'tools/call') return next();
    seen.push(`${name} in`);
    const outcome = await next();
    seen.push(`${name} out: ${textOf(outcome)}`);
    return outcome;
  };
  assert.equal(server.use(layer('first')).use(layer('second')), server, 'use returns the server');
  server.registerTool('order', {}, () => {
    seen.push('tool');
    return 'done';
  });
  const client = await connect(server);
  assert.equal(textOf(await client.callTool('order', {})), 'done');
  assert.deepEqual(seen, ['first in', 'second in', 'tool', 'second out: done', 'first out: done']);
  await client.close();
});

test('a middleware changes a request before passing it on, and the outcome after', async () => {
  const server = echoServer();
  server.use((message, next) => {
    if (message.target !== 'echo') return next();
    // Changed in place and passed on implicitly.
    message.params.arguments.text = `${message.params.arguments.text}, in place`;
    return next();
  });
  server.use(async (message, next) => {
    if (message.target !== 'echo') return next(message);
    // Passed on as a new message.
    const passed = { ...message, params: { ...message.params, arguments: { text: `${message.params.arguments.text}, copied` } } };
    const outcome = await next(passed);
    return { ...outcome, content: [{ type: 'text', text: `${textOf(outcome)}, answered` }] };
  });
  const client = await connect(server);
  const result = await client.callTool('echo', { text: 'sent' });
  assert.equal(textOf(result), 'sent, in place, copied, answered');
  await client.close();
});

test('a middleware answers a request itself without calling next', async () => {
  const server = echoServer();
  server.use((message, next) => {
    if (message.target === 'echo' && message.params.arguments.text === 'cached') {
      return { content: [{ type: 'text', text: 'answered early' }] };
    }
    return next();
  });
  const client = await connect(server);
  assert.equal(textOf(await client.callTool('echo', { text: 'cached' })), 'answered early');
  assert.equal(server.calls, 0, 'the tool never ran');
  assert.equal(textOf(await client.callTool('echo', { text: 'fresh' })), 'fresh');
  assert.equal(server.calls, 1);
  await client.close();
});

test('a middleware fails a request with the code and data of its McpError', async () => {
  const server = echoServer();
  server.use(async (message, next) => {
    if (message.method === 'tools/call' && message.params.arguments.text === 'forbidden') {
      throw new McpError(-32050, 'not here', { why: 'a test' });
    }
    return next();
  });
  server.use(async (message, next) => {
    if (message.target === 'echo' && message.params.arguments.text === 'plain') throw new Error('broken');
    return next();
  });
  const client = await connect(server);
  await assert.rejects(client.callTool('echo', { text: 'forbidden' }), (error) => {
    assert.ok(error instanceof McpError, `${error}`);
    assert.equal(error.code, -32050);
    assert.equal(error.message, 'not here');
    assert.deepEqual(error.data, { why: 'a test' });
    return true;
  });
  await assert.rejects(client.callTool('echo', { text: 'plain' }), (error) => {
    assert.ok(error instanceof McpError, `${error}`);
    assert.equal(error.code, -32603, 'any other error is an internal error');
    assert.match(error.message, /broken/);
    return true;
  });
  assert.equal(server.calls, 0);
  assert.equal(textOf(await client.callTool('echo', { text: 'fine' })), 'fine', 'the session keeps serving');
  await client.close();
});

test('next rejects with the error that failed the message, which a middleware may catch', async () => {
  const server = echoServer();
  server.registerTool('refuse', {}, () => {
    throw new McpError(-32051, 'refused by the tool');
  });
  const caught = [];
  server.use(async (message, next) => {
    try {
      return await next();
    } catch (error) {
      caught.push([error.constructor.name, error.code]);
      if (message.target === 'refuse') return { content: [{ type: 'text', text: 'recovered' }] };
      throw error;
    }
  });
  const client = await connect(server);
  assert.equal(textOf(await client.callTool('refuse', {})), 'recovered');
  assert.deepEqual(caught, [['McpError', -32051]]);
  await client.close();
});

test('a server middleware sees what it receives and sends with its session', async () => {
  const server = echoServer();
  server.registerTool('log', {}, async (_args, ctx) => {
    await ctx.listRoots();
    return 'logged';
  });
  const seen = [];
  server.use(async (message, next) => {
    const outcome = await next();
    seen.push({ ...message, outcome });
    return outcome;
  });
  const client = await connect(server, { roots: [{ uri: 'file:///tmp', name: 'tmp' }] });
  await client.callTool('echo', { text: 'x' });
  await client.callTool('log', {});
  const byMethod = (method) => seen.find((message) => message.method === method);
  const call = byMethod('tools/call');
  assert.equal(call.role, 'server');
  assert.equal(call.direction, 'received');
  assert.equal(call.isRequest, true);
  assert.equal(typeof call.id, 'number');
  assert.equal(call.target, 'echo');
  assert.equal(call.protocolVersion, client.protocolVersion);
  assert.equal(textOf(call.outcome), 'x');
  const initialized = byMethod('notifications/initialized');
  assert.equal(initialized.isRequest, false);
  assert.equal(initialized.outcome, null, "a notification's outcome is null");
  const roots = byMethod('roots/list');
  assert.equal(roots.direction, 'sent');
  assert.equal(roots.role, 'server');
  assert.deepEqual(roots.outcome.roots, [{ uri: 'file:///tmp', name: 'tmp' }], "the client's answer");
  await client.close();
});

test('notifications sent from the JavaScript thread pass through JavaScript middleware', async () => {
  const server = echoServer();
  server.registerTool('chatty', {}, (_args, ctx) => {
    ctx.log('info', 'from the handler');
    return 'logged';
  });
  let rootsChanged = 0;
  server.onRootsChanged(() => {
    rootsChanged += 1;
  });
  const sent = [];
  server.use(async (message, next) => {
    if (message.direction === 'sent') sent.push(message.method);
    await new Promise((resolve) => setImmediate(resolve));
    return next();
  });
  const clientSent = [];
  const client = await connect(server, {
    roots: [],
    middleware: [
      async (message, next) => {
        if (message.direction === 'sent') clientSent.push(message.method);
        return next();
      },
    ],
  });
  await client.setLoggingLevel('debug');
  const logged = nextEvent(client, 'log');
  assert.equal(textOf(await client.callTool('chatty', {})), 'logged');
  assert.equal((await logged).data, 'from the handler');
  const changed = nextEvent(client, 'toolsChanged');
  server.registerTool('late', {}, () => 'late');
  await changed;
  client.notifyRootsChanged();
  await waitFor(() => rootsChanged === 1);
  assert.ok(sent.includes('notifications/message') && sent.includes('notifications/tools/list_changed'), `${sent}`);
  assert.ok(clientSent.includes('notifications/roots/list_changed'), `${clientSent}`);
  await client.close();
});

test('a client middleware sees its own requests as sent, with their outcome', async () => {
  const server = echoServer();
  const seen = [];
  const client = await connect(server, {
    middleware: [
      async (message, next) => {
        const outcome = await next();
        seen.push({ role: message.role, direction: message.direction, method: message.method, target: message.target, outcome });
        return outcome;
      },
    ],
  });
  await client.callTool('echo', { text: 'hello' });
  const call = seen.find((entry) => entry.method === 'tools/call');
  assert.deepEqual(
    { ...call, outcome: textOf(call.outcome) },
    { role: 'client', direction: 'sent', method: 'tools/call', target: 'echo', outcome: 'hello' },
  );
  assert.ok(seen.some((entry) => entry.method === 'initialize' && entry.direction === 'sent'), JSON.stringify(seen));
  await client.close();
});

test('a client middleware changes what the client sends', async () => {
  const server = echoServer();
  const shout = (message, next) => {
    if (message.method === 'tools/call') message.params.arguments.text = message.params.arguments.text.toUpperCase();
    return next();
  };
  const client = await connect(server, { middleware: [shout] });
  assert.equal(textOf(await client.callTool('echo', { text: 'quiet' })), 'QUIET');
  await client.close();
});

test('a host runs its middleware on the connection to every server', async () => {
  const servers = [echoServer(), echoServer()];
  const served = await Promise.all(servers.map((server) => server.serveHttp({ port: 0 })));
  const seen = [];
  const shout = async (message, next) => {
    if (message.method === 'tools/call') message.params.arguments.text = message.params.arguments.text.toUpperCase();
    const outcome = await next();
    if (message.direction === 'sent') seen.push(`${message.method} ${message.target ?? ''}`.trim());
    return outcome;
  };
  const host = await Host.connect(
    { mcpServers: { one: { type: 'http', url: served[0].url }, two: { type: 'http', url: served[1].url } } },
    { middleware: [shout, middleware.timing()] },
  );
  try {
    assert.equal(textOf(await host.callTool('one__echo', { text: 'first' })), 'FIRST');
    assert.equal(textOf(await host.callTool('two__echo', { text: 'second' })), 'SECOND');
    assert.deepEqual(servers.map((server) => server.calls), [1, 1]);
    assert.equal(seen.filter((entry) => entry === 'initialize').length, 2, JSON.stringify(seen));
    assert.equal(seen.filter((entry) => entry === 'tools/call echo').length, 2, JSON.stringify(seen));
    await assert.rejects(Host.connect({ mcpServers: {} }, { middleware: shout }), TypeError);
  } finally {
    await host.close();
    await Promise.all(served.map((http) => http.close()));
  }
});

test('the built-in rate limit refuses requests beyond its burst with -32003 and retryAfterMs', async () => {
  const server = echoServer();
  // Timing inside the limit sees only the requests let through.
  server.use(middleware.rateLimit({ perSecond: 0.5, burst: 1 })).use(middleware.timing());
  const client = await connect(server);
  assert.equal(textOf(await client.callTool('echo', { text: 'first' })), 'first');
  await assert.rejects(client.callTool('echo', { text: 'second' }), (error) => {
    assert.ok(error instanceof McpError, `${error}`);
    assert.equal(error.code, -32003);
    assert.equal(typeof error.data.retryAfterMs, 'number');
    assert.ok(error.data.retryAfterMs > 0 && error.data.retryAfterMs <= 2000, `${error.data.retryAfterMs}`);
    return true;
  });
  assert.equal(server.calls, 1);
  await client.ping();
  await client.close();
});

test('the built-in cache of a client answers a repeated list without the server', async () => {
  const server = echoServer();
  let lists = 0;
  server.use((message, next) => {
    if (message.method === 'tools/list') lists += 1;
    return next();
  });
  const client = await connect(server, { middleware: [middleware.cache({ defaultTtlMs: 60000 })] });
  const first = await client.listTools();
  const second = await client.listTools();
  assert.deepEqual(second, first);
  assert.deepEqual(
    first.tools.map((tool) => tool.name),
    ['echo'],
  );
  assert.equal(lists, 1, 'the second list never reached the server');
  await client.close();
});

test('built-in middleware carry their settings, which are checked when used', async () => {
  assert.deepEqual(middleware.timing().spec, { timing: {} });
  assert.deepEqual(middleware.rateLimit({ perSecond: 2, per: 'session' }).spec, { rateLimit: { perSecond: 2, per: 'session' } });
  assert.deepEqual(middleware.cache().spec, { cache: {} });
  const server = echoServer();
  assert.throws(() => server.use(middleware.rateLimit({ perSecond: 0 })), InvalidInputError);
  assert.throws(() => server.use(middleware.rateLimit({ perSecond: 1, per: 'planet' })), InvalidInputError);
  assert.throws(() => server.use(middleware.cache({ ttl: 1 })), InvalidInputError);
  assert.throws(() => server.use(42), TypeError);
  await assert.rejects(connect(server, { middleware: [middleware.cache({ maxEntries: -1 })] }), InvalidInputError);
  await assert.rejects(connect(server, { middleware: middleware.timing() }), TypeError);
  // The refused middleware were not added: the server still serves.
  const client = await connect(server);
  assert.equal(textOf(await client.callTool('echo', { text: 'still' })), 'still');
  await client.close();
});
