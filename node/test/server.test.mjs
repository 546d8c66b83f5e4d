// The server API, driven by an in-process client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import {
  CancelledError,
  ConfigError,
  ErrorCode,
  InvalidInputError,
  McpError,
  McpServer,
  ResourceTemplate,
  Server,
  TimeoutError,
} from '../index.mjs';
import { connect, next, waitFor } from './helpers.mjs';
import * as mcpweft from '../index.mjs';
import errors from '../lib/errors.cjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('descriptors and schemas reach the client as registered', async () => {
  const server = new Server({ name: 'desc', version: '1.2.3', title: 'Descriptors' }, { instructions: 'Be nice.' });
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers.',
      inputSchema: { a: z.number().describe('first'), b: z.number() },
      outputSchema: { sum: z.number() },
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://example.com/add.png', mimeType: 'image/png' }],
    },
    ({ a, b }) => ({ sum: a + b }),
  );
  server.registerTool('object', { inputSchema: z.object({ name: z.string().default('you') }) }, ({ name }) => `Hello ${name}`);
  server.registerTool('json', { inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, (args) => args);
  server.registerTool('bare', {}, () => null);
  const client = await connect(server);
  assert.equal(client.serverInfo.title, 'Descriptors');
  assert.equal(client.instructions, 'Be nice.');
  const tools = Object.fromEntries((await client.listAll('tools')).map((t) => [t.name, t]));
  assert.equal(tools.add.title, 'Add');
  assert.equal(tools.add.annotations.readOnlyHint, true);
  assert.equal(tools.add.icons[0].mimeType, 'image/png');
  assert.deepEqual(tools.add.inputSchema.required, ['a', 'b']);
  assert.equal(tools.add.inputSchema.properties.a.description, 'first');
  assert.equal(tools.add.outputSchema.properties.sum.type, 'number');
  assert.equal(tools.object.inputSchema.properties.name.default, 'you');
  assert.deepEqual(tools.json.inputSchema, { type: 'object', properties: { q: { type: 'string' } } });
  assert.equal(tools.bare.inputSchema.type, 'object');

  const sum = await client.callTool('add', { a: 2, b: 3 });
  assert.deepEqual(sum.structuredContent, { sum: 5 });
  const greeting = await client.callTool('object', {});
  assert.equal(greeting.content[0].text, 'Hello you', 'zod parses the arguments, defaults included');
  await client.close();
});

test('return values follow the bridge rules, sync or async', async () => {
  const server = new Server({ name: 'results', version: '1' });
  server.registerTool('text', {}, () => 'hi');
  server.registerTool('async', {}, async () => {
    await sleep(5);
    return 'later';
  });
  server.registerTool('nothing', {}, () => undefined);
  server.registerTool('object', {}, () => ({ b: 1, a: 2 }));
  server.registerTool('blocks', {}, () => ['x', { type: 'image', data: 'AA==', mimeType: 'image/png' }]);
  server.registerTool('shaped', {}, () => ({ content: [{ type: 'text', text: 'own' }], isError: true }));
  server.registerTool('wrapped', { outputSchema: z.object({ result: z.number() }) }, () => 7);
  const client = await connect(server);
  const call = (name) => client.callTool(name, {});
  assert.deepEqual((await call('text')).content, [{ type: 'text', text: 'hi' }]);
  assert.equal((await call('async')).content[0].text, 'later');
  assert.deepEqual((await call('nothing')).content, []);
  const object = await call('object');
  assert.deepEqual(object.structuredContent, { b: 1, a: 2 });
  assert.equal(object.content[0].text, '{"b":1,"a":2}', 'key order survives the round trip');
  assert.equal((await call('blocks')).content[1].type, 'image');
  assert.deepEqual(await call('shaped'), { content: [{ type: 'text', text: 'own' }], isError: true });
  assert.deepEqual((await call('wrapped')).structuredContent, { result: 7 });
  await client.close();
});

test('long and short strings round-trip through a handler unchanged, whatever their characters', async () => {
  const server = new Server({ name: 'strings', version: '1' });
  server.registerTool('echo', {}, ({ text }) => text);
  server.registerTool('args', {}, (args) => ({
    args,
    prototype: Object.getPrototypeOf(args) === Object.prototype,
    ownProto: Object.hasOwn(args, '__proto__'),
  }));
  server.registerTool('shaped', {}, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('lone', {}, () => 'a\ud800b');
  const client = await connect(server);
  const long = (unit) => unit.repeat(Math.ceil(70000 / unit.length));
  const texts = {
    empty: '',
    ascii: long('0123456789abcdef'),
    latin1: long('café ß ÿ '),
    cjk: long('漢字かな '),
    emoji: long('😀👍🏽 a'),
    escapes: long('"\\/\b\f\n\r\t\u0000\u001f\u007f\u2028\u2029 '),
    short: 'é😀"\\\n',
  };
  for (const [name, text] of Object.entries(texts)) {
    const echoed = await client.callTool('echo', { text });
    assert.equal(echoed.content[0].text, text, `${name} through a string result`);
    const shaped = await client.callTool('shaped', { text });
    assert.equal(shaped.content[0].text, text, `${name} through a result object`);
  }
  // A string with a lone surrogate takes the JSON path, whose text has no UTF-8: an error, as before.
  const lone = await client.callTool('lone', {});
  assert.equal(lone.isError, true);
  assert.match(lone.content[0].text, /not valid JSON/);
  // Payloads with and without a long string (built directly, or parsed from JSON text) make
  // the same values, with `__proto__` an own property as JSON.parse makes it.
  for (const text of [texts.ascii, texts.emoji, 'short']) {
    const args = {
      text,
      ['__proto__']: { polluted: true },
      numbers: [0, 1, -2, 0.1, 1e300, 123456789012, -5e-324],
      nested: { list: [null, true, false, 'é', [text.slice(0, 2000)], {}], '10': 'ten', '2': 'two' },
    };
    const { structuredContent } = await client.callTool('args', args);
    assert.deepEqual(structuredContent.args, JSON.parse(JSON.stringify(args)));
    assert.deepEqual(Object.keys(structuredContent.args.nested), ['2', '10', 'list']);
    assert.equal(structuredContent.prototype, true);
    assert.equal(structuredContent.ownProto, true);
  }
  await client.close();
});

test('a thrown error is an isError result, an McpError a JSON-RPC error, and nothing crashes', async () => {
  const server = new Server({ name: 'errors', version: '1' });
  server.registerTool('throws', {}, () => {
    throw new Error('it broke');
  });
  server.registerTool('rejects', {}, async () => {
    await sleep(1);
    throw new TypeError('async break');
  });
  server.registerTool('string', {}, () => {
    throw 'a bare string';
  });
  server.registerTool('undefined', {}, () => Promise.reject(undefined));
  server.registerTool('bigint', {}, () => 10n);
  server.registerTool('circular', {}, () => {
    const loop = {};
    loop.self = loop;
    return loop;
  });
  server.registerTool('thenable', {}, () => ({
    then() {
      throw new Error('bad thenable');
    },
  }));
  server.registerTool('rpc', {}, () => {
    throw new McpError(ErrorCode.InvalidParams, 'bad params', { field: 'x' });
  });
  server.registerTool('lookalike', {}, () => {
    const error = new Error('from another SDK');
    error.name = 'McpError';
    error.code = -32001;
    throw error;
  });
  server.registerTool('typed', { inputSchema: { n: z.number() } }, ({ n }) => n);
  const client = await connect(server);
  const failure = async (name, args = {}) => {
    const result = await client.callTool(name, args);
    assert.equal(result.isError, true, `${name} is an isError result`);
    return result.content[0].text;
  };
  assert.equal(await failure('throws'), 'it broke');
  assert.equal(await failure('rejects'), 'async break');
  assert.equal(await failure('string'), 'a bare string');
  assert.equal(await failure('undefined'), 'undefined');
  assert.match(await failure('bigint'), /BigInt/);
  assert.match(await failure('circular'), /circular/i);
  assert.equal(await failure('thenable'), 'bad thenable');
  assert.match(await failure('typed', { n: 'x' }), /n/);
  await assert.rejects(client.callTool('rpc', {}), (error) => {
    assert.ok(error instanceof McpError);
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.message, 'bad params');
    assert.deepEqual(error.data, { field: 'x' });
    return true;
  });
  await assert.rejects(client.callTool('lookalike', {}), { name: 'McpError', code: -32001 });
  assert.deepEqual(await client.ping(), {});
  await client.close();
});

test('cancellation reaches ctx.signal, from an AbortSignal and from a time-out', async () => {
  const server = new Server({ name: 'cancel', version: '1' });
  const seen = [];
  server.registerTool('wait', {}, (_args, ctx) => {
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        seen.push(ctx.signal.reason);
        resolve('stopped');
      });
    });
  });
  server.registerTool('late', {}, async (_args, ctx) => {
    await sleep(100);
    seen.push(ctx.signal.aborted);
    return 'late';
  });
  const client = await connect(server);
  const controller = new AbortController();
  const call = client.callTool('wait', {}, { signal: controller.signal });
  await sleep(50);
  controller.abort();
  await assert.rejects(call, { name: 'AbortError' });
  await waitFor(() => seen.length === 1);
  assert.ok(seen[0] instanceof CancelledError);

  await assert.rejects(client.callTool('wait', {}, { timeout: 50 }), TimeoutError);
  await waitFor(() => seen.length === 2);

  const early = new AbortController();
  const late = client.callTool('late', {}, { signal: early.signal });
  await sleep(20);
  early.abort();
  await assert.rejects(late, { name: 'AbortError' });
  await waitFor(() => seen.length === 3);
  assert.equal(seen[2], true, 'a signal read after the cancellation is already aborted');
  await assert.rejects(client.ping({ signal: AbortSignal.abort() }), { name: 'AbortError' });
  await client.close();
});

test('progress and logging reach the client', async () => {
  const server = new Server({ name: 'progress', version: '1' });
  server.registerTool('work', {}, async (_args, ctx) => {
    for (const step of [1, 2, 3]) {
      ctx.progress(step, 3, `step ${step}`);
      ctx.log('info', { step }, 'worker');
      await sleep(1);
    }
    return { token: ctx.progressToken, id: ctx.requestId };
  });
  const client = await connect(server);
  const logs = [];
  client.on('log', (params) => logs.push(params));
  await client.setLoggingLevel('info');
  const progress = [];
  const result = await client.callTool('work', {}, { onProgress: (p) => progress.push(p) });
  assert.deepEqual(
    progress.map((p) => [p.progress, p.total, p.message]),
    [
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ],
  );
  assert.equal(result.structuredContent.token, progress[0].progressToken);
  assert.ok(['number', 'string'].includes(typeof result.structuredContent.id));
  await waitFor(() => logs.length === 3);
  assert.deepEqual(logs[2], { level: 'info', logger: 'worker', data: { step: 3 } });
  server.log('warning', 'from the server');
  await waitFor(() => logs.length === 4);
  assert.equal(logs[3].data, 'from the server');
  await client.close();
});

test('resources, templates, bytes and subscriptions', async () => {
  const server = new Server({ name: 'resources', version: '1' }, { resourceSubscriptions: true });
  server.registerResource('readme', 'mem://readme', { mimeType: 'text/markdown' }, (uri) => `# ${uri.protocol}`);
  server.registerResource('pixel', 'mem://pixel', { mimeType: 'image/png' }, () => new Uint8Array([1, 2, 3]));
  server.registerResource(
    'user',
    new ResourceTemplate('mem://users/{id}', { complete: { id: (value) => ['1', '2', '10'].filter((v) => v.startsWith(value)) } }),
    { mimeType: 'application/json' },
    async (uri, { id }) => ({ id, href: uri.href }),
  );
  const client = await connect(server);
  const readme = await client.readResource('mem://readme');
  assert.deepEqual(readme.contents, [{ uri: 'mem://readme', mimeType: 'text/markdown', text: '# mem:' }]);
  const pixel = await client.readResource(new URL('mem://pixel'));
  assert.equal(pixel.contents[0].blob, Buffer.from([1, 2, 3]).toString('base64'));
  const user = await client.readResource('mem://users/7');
  assert.deepEqual(JSON.parse(user.contents[0].text), { id: '7', href: 'mem://users/7' });
  await assert.rejects(client.readResource('mem://nothing'), { code: ErrorCode.ResourceNotFound });
  const templates = await client.listAll('resourceTemplates');
  assert.equal(templates[0].uriTemplate, 'mem://users/{id}');
  const completion = await client.complete({
    ref: { type: 'ref/resource', uri: 'mem://users/{id}' },
    argument: { name: 'id', value: '1' },
  });
  assert.deepEqual(completion.completion.values, ['1', '10']);

  await client.subscribeResource('mem://readme');
  const updated = next(client, 'resourceUpdated');
  server.notifyResourceUpdated('mem://readme');
  assert.equal((await updated).uri, 'mem://readme');
  await client.close();
});

test('prompts with zod arguments, and completions', async () => {
  const server = new Server({ name: 'prompts', version: '1' });
  server.registerPrompt(
    'greet',
    {
      description: 'Greets someone.',
      argsSchema: { who: z.string().describe('Whom to greet'), mood: z.string().optional() },
      complete: { who: (value, { arguments: args }) => [`${value}da`, `${value}-${args.mood ?? 'calm'}`] },
    },
    ({ who, mood }) => [`Hello ${who}`, { role: 'assistant', content: `(${mood ?? 'calm'})` }],
  );
  server.registerPrompt('plain', { arguments: [{ name: 'x', required: true }] }, ({ x }) => `x is ${x}`);
  server.setCompletionHandler((params) => [`fallback-${params.argument.value}`]);
  const client = await connect(server);
  const prompts = Object.fromEntries((await client.listAll('prompts')).map((p) => [p.name, p]));
  assert.deepEqual(prompts.greet.arguments, [
    { name: 'who', description: 'Whom to greet', required: true },
    { name: 'mood', required: false },
  ]);
  const greeting = await client.getPrompt('greet', { who: 'Ada' });
  assert.equal(greeting.description, 'Greets someone.');
  assert.deepEqual(
    greeting.messages.map((m) => [m.role, m.content.text]),
    [
      ['user', 'Hello Ada'],
      ['assistant', '(calm)'],
    ],
  );
  assert.equal((await client.getPrompt({ name: 'plain', arguments: { x: '1' } })).messages[0].content.text, 'x is 1');
  const complete = (name, argument, value, args) =>
    client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: argument, value }, context: { arguments: args } });
  assert.deepEqual((await complete('greet', 'who', 'A', { mood: 'glad' })).completion.values, ['Ada', 'A-glad']);
  assert.deepEqual((await complete('plain', 'x', 'q')).completion.values, ['fallback-q']);
  assert.ok(server.capabilities.completions);
  await client.close();
});

test('removing registrations sends list-changed notifications', async () => {
  const server = new Server({ name: 'changes', version: '1' });
  const tool = server.registerTool('t', {}, () => 1);
  server.registerResource('r', 'mem://r', {}, () => 'r');
  server.registerResource('rt', new ResourceTemplate('mem://r/{x}'), {}, () => 'rt');
  server.registerPrompt('p', {}, () => 'p');
  const client = await connect(server);
  const heard = [];
  client.on('notification', (n) => heard.push(n.method));
  assert.equal(tool.remove(), true);
  assert.equal(server.removeTool('t'), false);
  assert.equal(server.removeResource('mem://r'), true);
  assert.equal(server.removeResourceTemplate('mem://r/{x}'), true);
  assert.equal(server.removePrompt('p'), true);
  const kinds = ['tools', 'resources', 'prompts'].map((kind) => `notifications/${kind}/list_changed`);
  await waitFor(() => kinds.every((method) => heard.includes(method)));
  assert.deepEqual(await client.listAll('tools'), []);
  server.registerTool('again', {}, () => 2);
  await waitFor(() => heard.filter((m) => m === 'notifications/tools/list_changed').length >= 2);
  await client.close();
});

test('the context asks the client for samples, input and roots', async () => {
  const server = new Server({ name: 'asker', version: '1' });
  server.registerTool('ask', {}, async (_args, ctx) => {
    const sampled = await ctx.sample('What is 2+2?', { maxTokens: 10 });
    const form = await ctx.elicit('Your name?', z.object({ name: z.string() }));
    const url = await ctx.elicit({ mode: 'url', message: 'Log in', url: 'https://example.com/login', elicitationId: 'e1' });
    ctx.notifyElicitationComplete('e1');
    const roots = await ctx.listRoots();
    return {
      sampled: sampled.content.text,
      name: form.content.name,
      url: url.action,
      roots: roots.roots.map((r) => r.uri),
      client: ctx.clientInfo.name,
      version: ctx.protocolVersion,
      caps: Object.keys(ctx.clientCapabilities).sort(),
      session: ctx.sessionId ?? null,
    };
  });
  server.registerTool('sample', {}, (_args, ctx) => ctx.sample('hi'));
  const seen = [];
  const client = await connect(server, {
    sampling: (params) => {
      seen.push(params);
      return { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test-model' };
    },
    elicitation: {
      url: true,
      handler: async (params) =>
        params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: params.requestedSchema.properties.name.type } },
    },
    roots: [{ uri: 'file:///tmp/project', name: 'project' }],
  });
  const completed = next(client, 'elicitationComplete');
  const result = await client.callTool('ask', {});
  assert.deepEqual(result.structuredContent, {
    sampled: '4',
    name: 'string',
    url: 'accept',
    roots: ['file:///tmp/project'],
    client: 'tester',
    version: '2025-11-25',
    caps: ['elicitation', 'roots', 'sampling'],
    session: null,
  });
  assert.equal(seen[0].maxTokens, 10);
  assert.equal(seen[0].messages[0].content.text, 'What is 2+2?');
  assert.equal((await completed).elicitationId, 'e1');
  await client.close();

  const plain = await connect(server);
  const refused = await plain.callTool('sample', {});
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /sampling/);
  await plain.close();
});

test('a client handler that fails answers the server with an error', async () => {
  const server = new Server({ name: 'asker', version: '1' });
  server.registerTool('ask', {}, (_args, ctx) => ctx.elicit('name?', { type: 'object', properties: {} }));
  server.registerTool('caught', {}, async (_args, ctx) => {
    try {
      return await ctx.sample('hi');
    } catch (error) {
      return `caught ${error.name}: ${error.message}`;
    }
  });
  const client = await connect(server, {
    elicitation: () => {
      throw new McpError(-32000, 'the user went away');
    },
    sampling: async () => {
      throw new Error('no model');
    },
  });
  // The client's JSON-RPC error reaches the tool's caller as it is, unless the tool catches it.
  await assert.rejects(client.callTool('ask', {}), { name: 'McpError', code: -32000, message: 'the user went away' });
  const caught = await client.callTool('caught', {});
  assert.equal(caught.content[0].text, 'caught McpError: no model', 'a plain failure is an internal error');
  await client.close();
});

test('a roots change reaches the server, which asks for them', async () => {
  const server = new Server({ name: 'roots', version: '1' });
  const seen = [];
  server.onRootsChanged(async (ctx) => {
    seen.push((await ctx.listRoots()).roots);
  });
  assert.throws(() => server.onRootsChanged(() => {}), ConfigError);
  let roots = [{ uri: 'file:///a' }];
  const client = await connect(server, { roots: () => roots });
  roots = [{ uri: 'file:///b' }];
  client.notifyRootsChanged();
  await waitFor(() => seen.length === 1);
  assert.equal(seen[0][0].uri, 'file:///b');
  await client.close();
});

test('a name registered twice throws a ConfigError unless the registration asks to replace', async () => {
  const server = new Server({ name: 'twice', version: '1' });
  const registrations = {
    tool: (options) => server.registerTool('t', { ...options }, () => 'tool'),
    resource: (options) => server.registerResource('r', 'mem://r', { ...options }, () => 'resource'),
    'resource template': (options) => server.registerResource('x', new ResourceTemplate('mem://{x}'), { ...options }, () => 'x'),
    prompt: (options) => server.registerPrompt('p', { ...options }, () => 'prompt'),
    skill: (options) => server.addSkill('---\nname: s\ndescription: S.\n---\n', {}, options),
  };
  for (const [what, register] of Object.entries(registrations)) {
    register({});
    assert.throws(() => register({}), (error) => {
      assert.ok(error instanceof ConfigError, what);
      assert.equal(error.kind, 'config');
      assert.match(error.message, new RegExp(`^the ${what} ".*" is already registered`));
      return true;
    });
    register({ replace: true });
  }
  server.registerTool('t', { replace: true }, () => 'second');
  const client = await connect(server);
  assert.equal((await client.callTool('t', {})).content[0].text, 'second');
  assert.equal((await client.listAll('tools')).length, 1, 'the replaced tool is listed once');
  await client.close();
});

test('every error kind of the bridge has its class, and handlers hand over kinds and causes', async () => {
  const table = errors.ERROR_KINDS;
  assert.ok(table.length >= 12);
  for (const { name, meaning } of table) {
    assert.ok(meaning, name);
    const error = errors.fromNative(JSON.stringify({ kind: name, code: null, message: 'm', data: null, causes: ['c'] }));
    assert.equal(error.kind, name);
    assert.notEqual(error.constructor, mcpweft.McpweftError, `the kind ${name} has a class of its own`);
    assert.equal(mcpweft[error.constructor.name], error.constructor, `${error.constructor.name} is exported`);
    assert.deepEqual(error.causes, ['c']);
    assert.equal(error.cause.message, 'c');
  }
  const server = new Server({ name: 'kinds', version: '1' });
  server.registerTool('cancelled', {}, () => {
    throw new CancelledError('stopped', { cause: new Error('the user left') });
  });
  server.registerTool('chained', {}, () => {
    throw new Error('outer', { cause: new Error('inner') });
  });
  const client = await connect(server);
  const cancelled = await client.callTool('cancelled', {});
  assert.deepEqual([cancelled.isError, cancelled.content[0].text], [true, 'stopped']);
  const chained = await client.callTool('chained', {});
  assert.deepEqual([chained.isError, chained.content[0].text], [true, 'outer']);
  await client.close();
});

test('mistakes are clear errors', async () => {
  assert.throws(() => new Server({ name: 'x', version: '1', pagesize: 3 }), (error) => {
    assert.ok(error instanceof InvalidInputError);
    assert.match(error.message, /pagesize/);
    return true;
  });
  const server = new Server({ name: 'x', version: '1' });
  assert.throws(() => server.registerTool('bad', { inputSchema: { type: 'object', minimum: 'x' } }, () => 1), ConfigError);
  assert.throws(() => server.registerResource('t', new ResourceTemplate('a://{'), {}, () => 1), ConfigError);
  assert.throws(() => server.log('loud', 'x'), InvalidInputError);
  assert.throws(() => server.registerTool('zod3', { inputSchema: { _def: {} } }, () => 1), TypeError);
});

test('zod 3 schemas and raw shapes are refused with a message that says what is accepted', () => {
  const server = new Server({ name: 'x', version: '1' });
  const accepted = /mcpweft takes a JSON Schema object, a zod 4 schema, or a raw shape of zod 4 schemas .*zod\/v4/;
  assert.throws(() => server.registerTool('shape', { inputSchema: { a: z3.number(), b: z3.string() } }, () => 1), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^mcpweft: the raw shape's a, b are zod 3 schemas; /);
    assert.match(error.message, accepted);
    return true;
  });
  assert.throws(() => server.registerTool('object', { inputSchema: z3.object({ a: z3.number() }) }, () => 1), {
    name: 'TypeError',
    message: /^mcpweft: a zod 3 schema is not supported; mcpweft takes/,
  });
  assert.throws(() => server.registerPrompt('p', { argsSchema: { topic: z3.string() } }, () => 'x'), {
    message: /the raw shape's topic is a zod 3 schema/,
  });
  assert.throws(() => server.registerTool('mixed', { outputSchema: { a: z.number(), b: 'string' } }, () => 1), {
    name: 'TypeError',
    message: /a raw shape holds zod schemas only, but b is not/,
  });
  // Zod 4 raw shapes, as the TypeScript SDK takes them, still work.
  server.registerTool('zod4', { inputSchema: { a: z.number() } }, ({ a }) => a);
});

test('McpServer is Server, built as the TypeScript SDK builds it', async () => {
  assert.equal(McpServer, Server);
  const server = new McpServer({ name: 'ported', version: '2.0.0' }, { capabilities: { logging: {} }, instructions: 'Hi.' });
  server.registerTool('t', {}, () => 'ok');
  const client = await connect(server);
  assert.deepEqual(client.serverInfo, { name: 'ported', version: '2.0.0' });
  assert.equal(client.instructions, 'Hi.');
  assert.ok(client.serverCapabilities.logging);
  await client.close();
});

test('a ResourceTemplate list callback lists its resources in resources/list, as in the TypeScript SDK', async () => {
  const server = new Server({ name: 'listed', version: '1' }, { pageSize: 1 });
  server.registerResource('fixed', 'mem://fixed', {}, () => 'fixed');
  server.registerResource('fixed2', 'mem://fixed2', {}, () => 'fixed2');
  let sessions = 0;
  const users = new ResourceTemplate('mem://users/{id}', {
    list: async (ctx) => {
      sessions += ctx.requestId === undefined ? 0 : 1;
      return { resources: [{ uri: 'mem://users/1', name: 'Ada' }, { uri: 'mem://users/2', name: 'Alan', mimeType: 'text/markdown' }] };
    },
  });
  server.registerResource('user', users, { title: 'A user', mimeType: 'text/plain' }, (uri, { id }) => `user ${id}`);
  // Without a list callback (`list: undefined`, as TypeScript SDK code writes it), a template lists nothing.
  server.registerResource('other', new ResourceTemplate('mem://other/{x}', { list: undefined }), {}, () => 'other');
  server.registerResource('bare', new ResourceTemplate('mem://bare/{x}', { list: (_ctx) => [{ uri: 'mem://bare/a', name: 'a' }] }), {}, () => 'a');
  const client = await connect(server);
  const first = await client.listResources();
  assert.deepEqual(first.resources.map((r) => r.uri), ['mem://fixed'], 'the first page has fixed resources only');
  const last = await client.listResources({ cursor: first.nextCursor });
  assert.equal(last.nextCursor, undefined);
  assert.deepEqual(last.resources, [
    { uri: 'mem://fixed2', name: 'fixed2' },
    { uri: 'mem://users/1', name: 'Ada', title: 'A user', mimeType: 'text/plain' },
    { uri: 'mem://users/2', name: 'Alan', title: 'A user', mimeType: 'text/markdown' },
    { uri: 'mem://bare/a', name: 'a' },
  ]);
  assert.equal(sessions, 1, 'the list callback gets the request context');
  assert.equal((await client.listAll('resources')).length, 5);
  assert.equal((await client.readResource('mem://users/2')).contents[0].text, 'user 2');
  // A list callback that fails fails the list with its message.
  server.registerResource('broken', new ResourceTemplate('mem://broken/{x}', { list: () => { throw new Error('no users today'); } }), {}, () => '');
  await assert.rejects(client.listAll('resources'), { code: ErrorCode.InternalError, message: /no users today/ });
  assert.throws(() => new ResourceTemplate('mem://{x}', { list: 'nope' }), TypeError);
  assert.equal(users.listCallback, users.list);
  assert.equal(users.completeCallback('id'), undefined);
  await client.close();
});
