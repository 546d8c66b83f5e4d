#!/usr/bin/env node
// Reference MCP client written with the official TypeScript SDK.
//
//   node ts_client.mjs SERVER_CMD [ARGS...]
//
// Spawns SERVER_CMD over stdio and checks, with real assertions, that it
// implements the "calculator" contract shared with mcpweft's calculator_server
// example. Exits 0 when every check passes; otherwise prints which check
// failed (with what was sent and what came back) and exits 1.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const REQUEST_TIMEOUT_MS = 15_000;

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node ts_client.mjs SERVER_CMD [ARGS...]');
  process.exit(2);
}

const log = (...parts) => console.log('[ts_client]', ...parts);
const show = (value) => JSON.stringify(value, null, 2);

// Runs one named check. On failure, rethrows with the step name, the request
// that was sent and the last response received, so a mismatch is easy to read.
let checks = 0;
async function step(name, request, fn) {
  const ctx = { response: undefined };
  try {
    await fn(ctx);
    checks++;
    log(`ok   ${name}`);
  } catch (err) {
    const lines = [`FAILED check "${name}"`];
    if (request !== undefined) lines.push(`  sent: ${show(request)}`);
    if (ctx.response !== undefined) lines.push(`  got:  ${show(ctx.response)}`);
    lines.push(`  error: ${err?.stack ?? err}`);
    const wrapped = new Error(lines.join('\n'));
    wrapped.reported = true;
    throw wrapped;
  }
}

const transport = new StdioClientTransport({
  command,
  args,
  env: { ...process.env },
  stderr: 'inherit',
});

// The server process, so that it is never left behind when we exit (the SDK's
// own close() is asynchronous and is cut short by process.exit()).
let serverProcess;
const origStart = transport.start.bind(transport);
transport.start = async () => {
  try {
    await origStart();
  } finally {
    serverProcess = transport._process;
  }
};

// --- Wire tap -------------------------------------------------------------
// Every JSON-RPC message sent and received, in wire order, so checks can be
// made on exactly what the server put on the wire (independently of how the
// SDK dispatches it).
const wire = [];
const origSend = transport.send.bind(transport);
transport.send = (message, options) => {
  wire.push({ dir: 'out', message });
  return origSend(message, options);
};

// Workaround for a known bug of the TypeScript SDK 1.x client
// (modelcontextprotocol/typescript-sdk#2580): it dispatches responses
// synchronously but notifications one microtask later, so when a progress
// notification and the response it precedes arrive in the same stdout chunk,
// the response retires the progress handler first and the notification is
// dropped as "unknown token". Here responses are handed to the SDK on the next
// macrotask, after the notifications that preceded them on the wire. The
// ordering the server actually used is still checked strictly on `wire`.
const isResponse = (m) => m && m.method === undefined && m.id !== undefined;
let sdkOnMessage;
Object.defineProperty(transport, 'onmessage', {
  configurable: true,
  get: () => sdkOnMessage && ((message, extra) => {
    wire.push({ dir: 'in', message });
    if (isResponse(message)) setImmediate(() => sdkOnMessage(message, extra));
    else sdkOnMessage(message, extra);
  }),
  set: (fn) => {
    sdkOnMessage = fn;
  },
});

const client = new Client(
  { name: 'ts-interop-client', version: '0.1.0' },
  { capabilities: {} },
);
// Protocol-level errors (unparseable messages, responses or progress for
// unknown ids/tokens...) are failures too.
const protocolErrors = [];
client.onerror = (err) => {
  protocolErrors.push(String(err?.message ?? err));
  console.error(`[ts_client] protocol error: ${err?.message ?? err}`);
};

const logMessages = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logMessages.push(notification.params);
  log(`log ${notification.params.level} [${notification.params.logger ?? ''}]: ${
    typeof notification.params.data === 'string'
      ? notification.params.data
      : JSON.stringify(notification.params.data)
  }`);
});

const opts = { timeout: REQUEST_TIMEOUT_MS };

async function main() {
  await step('initialize', { method: 'initialize' }, async (ctx) => {
    await client.connect(transport, opts);
    const caps = client.getServerCapabilities();
    ctx.response = { serverInfo: client.getServerVersion(), capabilities: caps };
    assert.ok(caps, 'server returned no capabilities');
    for (const cap of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
      assert.ok(caps[cap] !== undefined, `server capabilities lack "${cap}"`);
    }
    log(`connected to ${show(client.getServerVersion())}`);
  });

  await step('ping', { method: 'ping' }, async (ctx) => {
    ctx.response = await client.ping(opts);
    assert.deepEqual(ctx.response, {}, 'ping must return an empty result');
  });

  await step('tools/list', { method: 'tools/list' }, async (ctx) => {
    const res = (ctx.response = await client.listTools({}, opts));
    const byName = new Map(res.tools.map((t) => [t.name, t]));
    for (const name of ['add', 'divide', 'count']) {
      assert.ok(byName.has(name), `tools/list lacks tool "${name}"`);
      const schema = byName.get(name).inputSchema;
      assert.equal(schema?.type, 'object', `tool "${name}" inputSchema.type must be "object"`);
      assert.ok(schema.properties, `tool "${name}" inputSchema has no properties`);
    }
    for (const name of ['add', 'divide']) {
      const schema = byName.get(name).inputSchema;
      for (const p of ['a', 'b']) {
        assert.equal(schema.properties[p]?.type, 'number', `tool "${name}" property "${p}" must be a number`);
        assert.ok(schema.required?.includes(p), `tool "${name}" must require "${p}"`);
      }
    }
    const countSchema = byName.get('count').inputSchema;
    assert.equal(countSchema.properties.n?.type, 'integer', 'tool "count" property "n" must be an integer');
    assert.ok(countSchema.required?.includes('n'), 'tool "count" must require "n"');
  });

  {
    const req = { name: 'add', arguments: { a: 2, b: 3 } };
    await step('tools/call add(2, 3)', req, async (ctx) => {
      const res = (ctx.response = await client.callTool(req, undefined, opts));
      assert.notEqual(res.isError, true, 'add returned isError');
      assert.equal(res.structuredContent?.sum, 5, 'structuredContent.sum must be 5');
      assert.deepEqual(res.structuredContent, { sum: 5 });
      const text = res.content?.find((c) => c.type === 'text');
      assert.ok(text, 'add result has no text content block');
      assert.deepEqual(JSON.parse(text.text), { sum: 5 }, 'text block must hold the structuredContent JSON');
    });
  }

  {
    const req = { name: 'divide', arguments: { a: 1, b: 0 } };
    await step('tools/call divide(1, 0)', req, async (ctx) => {
      const res = (ctx.response = await client.callTool(req, undefined, opts));
      assert.equal(res.isError, true, 'divide by zero must return isError: true');
      assert.ok(
        res.content?.some((c) => c.type === 'text' && c.text.length > 0),
        'divide-by-zero error result must carry a text block',
      );
    });
  }

  {
    const req = { name: 'divide', arguments: { a: 7, b: 2 } };
    await step('tools/call divide(7, 2)', req, async (ctx) => {
      const res = (ctx.response = await client.callTool(req, undefined, opts));
      assert.notEqual(res.isError, true, 'divide(7, 2) returned isError');
      assert.deepEqual(res.structuredContent, { quotient: 3.5 });
    });
  }

  await step('logging/setLevel debug', { method: 'logging/setLevel', params: { level: 'debug' } }, async (ctx) => {
    ctx.response = await client.setLoggingLevel('debug', opts);
  });

  {
    const req = { name: 'count', arguments: { n: 3 }, _meta: { progressToken: '<set by the SDK>' } };
    await step('tools/call count(3) with progress', req, async (ctx) => {
      const progress = [];
      const logsBefore = logMessages.length;
      const wireBefore = wire.length;
      const res = (ctx.response = await client.callTool(
        { name: 'count', arguments: { n: 3 } },
        undefined,
        {
          ...opts,
          onprogress: (p) => {
            progress.push(p);
            log(`progress ${p.progress}/${p.total}${p.message ? ` (${p.message})` : ''}`);
          },
        },
      ));
      // Notifications need not precede the response for logging; allow a
      // short grace period for servers that emit them from another task.
      const deadline = Date.now() + 1000;
      while (logMessages.length - logsBefore < 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const logs = logMessages.slice(logsBefore);

      // What actually crossed the wire for this call.
      const traffic = wire.slice(wireBefore);
      const sent = traffic.find((w) => w.dir === 'out' && w.message.method === 'tools/call')?.message;
      const token = sent?.params?._meta?.progressToken;
      const responseIdx = traffic.findIndex((w) => w.dir === 'in' && isResponse(w.message) && w.message.id === sent?.id);
      const wireProgress = traffic
        .map((w, i) => ({ ...w, i }))
        .filter((w) => w.dir === 'in' && w.message.method === 'notifications/progress');
      ctx.response = {
        sent,
        result: res,
        onprogressReceived: progress,
        wireProgress: wireProgress.map((w) => ({ position: w.i < responseIdx ? 'before response' : 'AFTER response', params: w.message.params })),
        logs,
      };

      assert.ok(token !== undefined, 'the SDK did not put _meta.progressToken on the request');
      assert.notEqual(res.isError, true, 'count returned isError');
      const text = res.content?.find((c) => c.type === 'text');
      assert.equal(text?.text, 'counted to 3');

      // Wire-level checks: what the server sent.
      assert.equal(wireProgress.length, 3, `server sent ${wireProgress.length} notifications/progress, expected 3`);
      for (const w of wireProgress) {
        assert.deepEqual(w.message.params.progressToken, token, 'progress notification carries a different progressToken than the request');
        assert.ok(w.i < responseIdx, 'a progress notification was sent after the tools/call response');
      }
      assert.deepEqual(wireProgress.map((w) => w.message.params.progress), [1, 2, 3], 'progress must be 1, 2, 3');
      for (const w of wireProgress) assert.equal(w.message.params.total, 3, 'progress total must be 3');

      // SDK-level check: the onprogress callback saw them all.
      assert.equal(progress.length, 3, `onprogress received ${progress.length} notifications, expected 3`);
      assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3]);

      assert.ok(logs.length >= 3, `expected at least 3 notifications/message, got ${logs.length}`);
      const calc = logs.filter((m) => m.logger === 'calculator' && m.level === 'info');
      assert.ok(calc.length >= 3, `expected at least 3 info messages from logger "calculator", got ${calc.length}`);
    });
  }

  await step('resources/list', { method: 'resources/list' }, async (ctx) => {
    const res = (ctx.response = await client.listResources({}, opts));
    const r = res.resources.find((x) => x.uri === 'calc://constants');
    assert.ok(r, 'resources/list lacks calc://constants');
  });

  {
    const req = { uri: 'calc://constants' };
    await step('resources/read calc://constants', req, async (ctx) => {
      const res = (ctx.response = await client.readResource(req, opts));
      assert.equal(res.contents.length, 1, 'expected exactly one content item');
      const [c] = res.contents;
      assert.equal(c.uri, 'calc://constants');
      assert.equal(c.mimeType, 'application/json');
      assert.equal(typeof c.text, 'string', 'content must be text');
      const parsed = JSON.parse(c.text);
      assert.equal(parsed.pi, Math.PI);
      assert.equal(parsed.e, Math.E);
    });
  }

  await step('resources/templates/list', { method: 'resources/templates/list' }, async (ctx) => {
    const res = (ctx.response = await client.listResourceTemplates({}, opts));
    assert.ok(
      res.resourceTemplates.some((t) => t.uriTemplate === 'calc://constants/{name}'),
      'resources/templates/list lacks calc://constants/{name}',
    );
  });

  {
    const req = { uri: 'calc://constants/pi' };
    await step('resources/read calc://constants/pi', req, async (ctx) => {
      const res = (ctx.response = await client.readResource(req, opts));
      assert.equal(res.contents.length, 1, 'expected exactly one content item');
      assert.equal(res.contents[0].uri, 'calc://constants/pi');
      assert.equal(res.contents[0].text, '3.141592653589793');
    });
  }

  await step('prompts/list', { method: 'prompts/list' }, async (ctx) => {
    const res = (ctx.response = await client.listPrompts({}, opts));
    const p = res.prompts.find((x) => x.name === 'explain');
    assert.ok(p, 'prompts/list lacks "explain"');
    const arg = p.arguments?.find((a) => a.name === 'expression');
    assert.ok(arg, 'prompt "explain" lacks argument "expression"');
    assert.equal(arg.required, true, 'argument "expression" must be required');
  });

  {
    const req = { name: 'explain', arguments: { expression: '2+3' } };
    await step('prompts/get explain', req, async (ctx) => {
      const res = (ctx.response = await client.getPrompt(req, opts));
      assert.equal(res.messages.length, 1, 'expected exactly one message');
      const [m] = res.messages;
      assert.equal(m.role, 'user');
      assert.equal(m.content.type, 'text');
      assert.ok(m.content.text.includes('2+3'), 'prompt text must contain "2+3"');
      assert.equal(m.content.text, 'Explain step by step how to compute 2+3.');
    });
  }

  await step('ping (again, after all calls)', { method: 'ping' }, async (ctx) => {
    ctx.response = await client.ping(opts);
    assert.deepEqual(ctx.response, {});
  });

  await step('no protocol errors', undefined, async (ctx) => {
    ctx.response = protocolErrors;
    assert.deepEqual(protocolErrors, [], 'the SDK reported protocol errors while talking to the server');
  });
}

let code = 0;
try {
  await main();
  log(`all ${checks} checks passed`);
} catch (err) {
  console.error(`[ts_client] ${err.reported ? err.message : `FAILED: ${err?.stack ?? err}`}`);
  code = 1;
} finally {
  try {
    await client.close();
  } catch {
    // ignore
  }
  if (serverProcess && serverProcess.exitCode === null && serverProcess.signalCode === null) {
    serverProcess.kill('SIGKILL');
  }
}
process.exit(code);
