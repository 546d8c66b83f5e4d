// The examples run as tests: the host aggregates two calculators (the Node one twice, and the
// Rust one in place of the second when `cargo build -p mcpweft --examples` has built it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { runNode } from './helpers.mjs';

const example = (name) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));
const rust = resolve(repo, process.env.CARGO_TARGET_DIR ?? 'target', 'debug', 'examples', 'calculator_server');

test('the host aggregates the tools of two calculator servers and calls each', async () => {
  const calculator = `${process.execPath} ${example('calculator.mjs')}`;
  const second = existsSync(rust) ? rust : calculator;
  const run = await runNode([example('host.mjs'), calculator, second]);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines[0], '6 tools: calculator1.add, calculator1.divide, calculator1.count, calculator2.add, calculator2.divide, calculator2.count');
  assert.deepEqual(lines.slice(1), ['calculator1.add(2, 3) = {"sum":5}', 'calculator2.add(2, 3) = {"sum":5}']);
});
