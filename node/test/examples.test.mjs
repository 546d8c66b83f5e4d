// The examples run as tests: the host connects to the Rust calculator over stdio, the Python
// one over Streamable HTTP, the official reference server over stdio, and a command that fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNode } from './helpers.mjs';
import { requireServers } from './helpers.mjs';

const example = (name) => new URL(`../examples/${name}`, import.meta.url).pathname;

test('the host connects to three kinds of server and calls a tool of each', async () => {
  requireServers();
  const run = await runNode([example('host.mjs')], { ms: 120000 });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(0, 4), ['calc: ready', 'pycalc: ready', 'everything: ready', 'broken: failed (no API key given)']);
  assert.ok(lines.includes('calc__add(2, 40) = 42'), run.stdout);
  assert.ok(lines.includes('pycalc__add(2, 40) = 42'), run.stdout);
  assert.ok(lines.includes('everything__get-sum(2, 40) = The sum of 2 and 40 is 42.'), run.stdout);
});
