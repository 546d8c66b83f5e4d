#!/usr/bin/env node
// A client of a cluster written with the official TypeScript SDK (this folder's pinned
// @modelcontextprotocol/sdk): one session through the balancer.
//
//   node ts_cluster_client.mjs URL
//
// Calls `whoami` six times and checks that three processes answered, then calls `greet`,
// answering its elicitation and counting its progress, and checks the answer. Exits 0 when
// every check passes, 1 otherwise.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: node ts_cluster_client.mjs URL');
  process.exit(2);
}

const client = new Client({ name: 'ts-cluster-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
let elicited = 0;
client.setRequestHandler(ElicitRequestSchema, async () => {
  elicited++;
  return { action: 'accept', content: { name: 'ts' } };
});

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const processes = new Set();
  for (let i = 0; i < 6; i++) {
    const answer = await client.callTool({ name: 'whoami', arguments: {} });
    processes.add(answer.content[0].text);
  }
  assert.equal(processes.size, 3, `three processes answered: ${[...processes].join(', ')}`);
  console.log(`[ts_client] ok   whoami answered by ${[...processes].join(', ')}`);
  const progress = [];
  const greeted = await client.callTool({ name: 'greet', arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
    timeout: 15_000,
  });
  assert.equal(elicited, 1, 'one elicitation');
  assert.deepEqual(progress, [1, 2], 'progress before and after the elicitation');
  assert.match(greeted.content[0].text, /^hello ts, from process \d+$/);
  console.log(`[ts_client] ok   greet: ${greeted.content[0].text}`);
  await client.close();
  process.exit(0);
} catch (error) {
  console.error(`[ts_client] FAILED: ${error?.stack ?? error}`);
  process.exit(1);
}
