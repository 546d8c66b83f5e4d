// OpenTelemetry over @opentelemetry/api: a client and a server with middleware.openTelemetry()
// record the core's spans, and the server's span of a call is a child of the client's, across
// the W3C trace context in the request's `_meta`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { McpError, Server, middleware } from '../index.mjs';
import { connect, runNode, waitFor } from './helpers.mjs';

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

/** A server with an `add` tool and a `refuse` tool that fails with a JSON-RPC error, traced. */
function tracedServer() {
  const server = new Server({ name: 'traced', version: '1' });
  const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } };
  server.registerTool('add', { inputSchema: schema }, ({ a, b }) => String(a + b));
  server.registerTool('refuse', {}, () => {
    throw new McpError(-32050, 'refused');
  });
  return server.use(middleware.openTelemetry());
}

/** The one finished span named `name`, once it ended. */
async function span(name) {
  await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === name));
  const found = exporter.getFinishedSpans().filter((s) => s.name === name);
  assert.equal(found.length, 1, `one span ${name}`);
  return found[0];
}

test("the server's span of a call is a child of the client's span", async () => {
  exporter.reset();
  const client = await connect(tracedServer(), { middleware: [middleware.openTelemetry()] });
  try {
    assert.equal((await client.callTool('add', { a: 2, b: 3 })).content[0].text, '5');
  } finally {
    await client.close();
  }
  const sent = await span('MCP send tools/call add');
  const received = await span('tools/call add');
  assert.equal(sent.kind, SpanKind.CLIENT);
  assert.equal(received.kind, SpanKind.SERVER);
  assert.equal(sent.instrumentationScope.name, 'mcpweft');
  assert.equal(received.spanContext().traceId, sent.spanContext().traceId);
  assert.equal(received.parentSpanContext?.spanId, sent.spanContext().spanId);
  assert.equal(received.parentSpanContext?.isRemote, true);
  assert.equal(sent.attributes['mcp.method.name'], 'tools/call');
  assert.equal(received.attributes['mcp.method.name'], 'tools/call');
  assert.equal(received.attributes['gen_ai.tool.name'], 'add');
  assert.equal(received.attributes['gen_ai.operation.name'], 'execute_tool');
  assert.equal(received.attributes['jsonrpc.request.id'], sent.attributes['jsonrpc.request.id']);
  assert.equal(received.status.code, SpanStatusCode.UNSET);
});

test('a failing call sets error.type and an error status on both spans', async () => {
  exporter.reset();
  const client = await connect(tracedServer(), { middleware: [middleware.openTelemetry()] });
  try {
    await assert.rejects(client.callTool('refuse', {}), (error) => error instanceof McpError && error.code === -32050);
  } finally {
    await client.close();
  }
  for (const name of ['MCP send tools/call refuse', 'tools/call refuse']) {
    const failed = await span(name);
    assert.equal(failed.attributes['error.type'], '-32050', name);
    assert.equal(failed.attributes['rpc.response.status_code'], '-32050', name);
    assert.equal(failed.status.code, SpanStatusCode.ERROR, name);
    assert.equal(failed.status.message, 'refused', name);
  }
});

test('without @opentelemetry/api the middleware says what to install', async () => {
  const hide = `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@opentelemetry/api') throw Object.assign(new Error('not found'), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
const { ConfigError, middleware } = require('./index.cjs');
try {
  middleware.openTelemetry();
} catch (error) {
  console.log(error instanceof ConfigError, error.message);
}`;
  const { code, stdout } = await runNode(['-e', hide]);
  assert.equal(code, 0);
  assert.match(stdout, /^true .*npm install @opentelemetry\/api/);
});
