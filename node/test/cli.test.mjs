// The package's `mcpweft` command (bin/mcpweft.cjs, what `npx mcpweft` runs): the native
// command of the addon, against the Node calculator example over stdio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/mcpweft.cjs', import.meta.url));
const calculator = fileURLToPath(new URL('../examples/calculator.mjs', import.meta.url));

/** Runs `mcpweft ARGS…` through the package's bin and returns its status and output. */
function mcpweft(...args) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60000 });
}

test('mcpweft lists and calls the tools of a server', () => {
  const tools = mcpweft('tools', '--', process.execPath, calculator);
  assert.equal(tools.status, 0, tools.stderr);
  assert.deepEqual(tools.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]), ['add', 'divide', 'count']);
  const sum = mcpweft('call', 'add', '{"a": 2, "b": 3}', '--json', '--', process.execPath, calculator);
  assert.equal(sum.status, 0, sum.stderr);
  assert.deepEqual(JSON.parse(sum.stdout).structuredContent, { sum: 5 });
  const text = mcpweft('call', 'add', '{"a": 2, "b": 3}', '--', process.execPath, calculator);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /"sum": 5/);
  const failed = mcpweft('call', 'divide', '{"a": 1, "b": 0}', '--', process.execPath, calculator);
  assert.equal(failed.status, 1, 'a tool error exits with 1');
});

test('mcpweft inspects a server in text and as JSON', () => {
  const inspected = mcpweft('inspect', '--', process.execPath, calculator);
  assert.equal(inspected.status, 0, inspected.stderr);
  assert.match(inspected.stdout, /calculator/);
  assert.match(inspected.stdout, /\badd\b/);
  const json = mcpweft('inspect', '--json', '--', process.execPath, calculator);
  assert.equal(json.status, 0, json.stderr);
  const everything = JSON.parse(json.stdout);
  assert.equal(everything.serverInfo.name, 'calculator');
  assert.deepEqual(everything.tools.map((tool) => tool.name), ['add', 'divide', 'count']);
});

test('mcpweft names its version, usage mistakes and a server that cannot start', () => {
  const version = mcpweft('--version');
  assert.equal(version.status, 0);
  assert.match(version.stdout, /^mcpweft \d+\.\d+\.\d+/);
  const usage = mcpweft('call');
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /Usage/);
  const dead = mcpweft('tools', '--', process.execPath, '-e', 'console.error("no key"); process.exit(4)');
  assert.equal(dead.status, 3);
  assert.match(dead.stderr, /no key/);
});
