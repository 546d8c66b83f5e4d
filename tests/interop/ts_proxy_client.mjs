#!/usr/bin/env node
// A client written with the official TypeScript SDK of the Rust conformance fixture, started
// as a stdio server: in the interop tests, `mcpweft proxy URL` in front of the fixture served
// over HTTP.
//
//   node ts_proxy_client.mjs SERVER_CMD [ARGS...]
//
// Speaks revision 2025-11-25 (the SDK's latest). Lists the tools, calls one with progress,
// reads a resource, gets two prompts, and answers the fixture's elicitation and sampling
// requests. Prints `all N checks passed` and exits 0 when every check passes, 1 otherwise.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const REQUEST_TIMEOUT_MS = 15_000;

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node ts_proxy_client.mjs SERVER_CMD [ARGS...]');
  process.exit(2);
}

let checks = 0;
function check(condition, what) {
  assert.ok(condition, what);
  checks++;
  console.log(`[ts_proxy_client] ok   ${what}`);
}

const texts = (content) => content.filter((c) => c.type === 'text').map((c) => c.text);

const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });

// The SDK 1.x client handles a response at once but a notification one microtask later, so a
// progress notification that shares a stdout chunk with the response after it is dropped
// (modelcontextprotocol/typescript-sdk#2580): responses reach the SDK one macrotask late, as
// in ts_client.mjs.
let sdkOnMessage;
Object.defineProperty(transport, 'onmessage', {
  configurable: true,
  get: () =>
    sdkOnMessage &&
    ((message, extra) => {
      const response = message && message.method === undefined && message.id !== undefined;
      if (response) setImmediate(() => sdkOnMessage(message, extra));
      else sdkOnMessage(message, extra);
    }),
  set: (fn) => {
    sdkOnMessage = fn;
  },
});

const client = new Client(
  { name: 'ts-proxy-client', version: '0.1.0' },
  { capabilities: { elicitation: {}, sampling: {} } },
);
const protocolErrors = [];
client.onerror = (err) => protocolErrors.push(String(err?.message ?? err));

const elicited = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  elicited.push(request.params.message);
  return { action: 'accept', content: { username: 'ts', email: 'ts@example.com' } };
});
const sampled = [];
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  const [message] = request.params.messages;
  sampled.push(message.content.text);
  return { role: 'assistant', content: { type: 'text', text: `echo ${message.content.text}` }, model: 'test-model' };
});

const options = { timeout: REQUEST_TIMEOUT_MS };
let code = 1;
try {
  await client.connect(transport, options);
  check(client.getServerVersion()?.name === 'mcpweft-conformance-server', 'server info');

  const names = (await client.listTools(undefined, options)).tools.map((t) => t.name);
  for (const name of ['test_tool_with_progress', 'test_elicitation', 'test_sampling', 'test_simple_text']) {
    check(names.includes(name), `tools/list has ${name}`);
  }

  const simple = await client.callTool({ name: 'test_simple_text', arguments: {} }, undefined, options);
  check(texts(simple.content)[0] === 'This is a simple text response for testing.', "a tool's text");

  const progress = [];
  const progressed = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    ...options,
    onprogress: (p) => progress.push([p.progress, p.total]),
  });
  check(texts(progressed.content)[0] === 'Tool with progress executed successfully', 'a tool with progress');
  check(JSON.stringify(progress) === '[[0,100],[50,100],[100,100]]', `progress ${JSON.stringify(progress)}`);

  const read = await client.readResource({ uri: 'test://static-text' }, options);
  check(read.contents.length === 1 && read.contents[0].text === 'This is the content of the static text resource.', 'resources/read');

  const simplePrompt = await client.getPrompt({ name: 'test_simple_prompt' }, options);
  check(simplePrompt.messages[0].content.text === 'This is a simple prompt for testing.', 'prompts/get');
  const withArguments = await client.getPrompt(
    { name: 'test_prompt_with_arguments', arguments: { arg1: 'one', arg2: 'two' } },
    options,
  );
  check(withArguments.messages[0].content.text === "Prompt with arguments: arg1='one', arg2='two'", 'prompts/get with arguments');

  const answered = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }, undefined, options);
  check(JSON.stringify(elicited) === '["Who are you?"]', `the elicitation reached the client: ${JSON.stringify(elicited)}`);
  check(!answered.isError && texts(answered.content).join(' ').includes('ts@example.com'), 'the elicited answer');

  const sampling = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'ping' } }, undefined, options);
  check(JSON.stringify(sampled) === '["ping"]', `the sampling request reached the client: ${JSON.stringify(sampled)}`);
  check(texts(sampling.content)[0] === 'LLM response: echo ping', 'the sampled answer');

  check(protocolErrors.length === 0, `no protocol errors: ${protocolErrors.join('; ')}`);
  console.log(`[ts_proxy_client] all ${checks} checks passed (2025-11-25)`);
  code = 0;
} catch (err) {
  console.error(`[ts_proxy_client] FAILED: ${err?.stack ?? err}`);
} finally {
  try {
    await client.close();
  } catch {
    // already closed
  }
}
process.exit(code);
