// The tarball of the checkout (`npm pack`, the main package without the optional platform
// packages that a release adds) installs into a fresh project at once: no install script
// runs, nothing compiles. Without a platform package the loader says how to build the addon;
// the opt-in scripts/build-from-source.mjs then builds it from this checkout (a debug build in
// the workspace's target folder, which `make build-node` has already compiled), and the
// installed package serves a tool to its own client, from ESM and from CommonJS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const repo = resolve(pkg, '..');

/** Runs `command args...` in `cwd`; returns its status and output. */
function spawn(command, args, { cwd, env = process.env, ms = 60000 }) {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: ms, maxBuffer: 64 * 1024 * 1024 });
}

/** Runs `command args...` in `cwd` within `ms`, failing the test if it fails. */
function run(command, args, options) {
  const result = spawn(command, args, options);
  assert.equal(result.error, undefined, `${command} ${args.join(' ')}: ${result.error?.message}`);
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const consumerEsm = `
import { Server, Client } from 'mcpweft';
const server = new Server({ name: 'packed', version: '1.0.0' });
server.registerTool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
  ({ a, b }) => a + b);
const client = await Client.connectInProcess(server);
const { tools } = await client.listTools();
const result = await client.callTool('add', { a: 2, b: 3 });
await client.close();
console.log(JSON.stringify({ tools: tools.map((t) => t.name), text: result.content[0].text }));
`;

const consumerCjs = `
const { Server, Client } = require('mcpweft');
(async () => {
  const server = new Server({ name: 'packed', version: '1.0.0' });
  server.registerTool('hello', { description: 'Greets.' }, () => 'hi from CommonJS');
  const client = await Client.connectInProcess(server);
  const result = await client.callTool('hello', {});
  await client.close();
  console.log(JSON.stringify({ text: result.content[0].text }));
})();
`;

test('the packed tarball installs without building, and the opt-in script builds its addon', { timeout: 20 * 60 * 1000 }, (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpweft-install-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const packed = JSON.parse(run('npm', ['pack', pkg, '--pack-destination', scratch, '--json', '--loglevel=error'], { cwd: scratch }));
  const project = join(scratch, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));

  const started = performance.now();
  run('npm', ['install', join(scratch, packed[0].filename), '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project });
  t.diagnostic(`npm install of the main package alone: ${((performance.now() - started) / 1000).toFixed(2)} s`);
  const installed = join(project, 'node_modules', 'mcpweft');
  assert.ok(!existsSync(join(installed, 'mcpweft.node')), 'installing built nothing');

  const missing = spawn(process.execPath, ['-e', "require('mcpweft')"], { cwd: project });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /mcpweft: the package mcpweft-[a-z0-9-]+, which holds the prebuilt native addon of this platform, is not installed/);
  assert.match(missing.stderr, /build-from-source\.mjs/);

  // Without cargo, the build says what it needs.
  const script = join(installed, 'scripts', 'build-from-source.mjs');
  const noCargo = { ...process.env, CARGO: join(scratch, 'no-cargo') };
  const refused = spawn(process.execPath, [script, '--source', repo], { cwd: project, env: noCargo });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /^mcpweft: .*no-cargo was not found: building from source needs a Rust toolchain \(1\.88 or newer\) on PATH$/m);
  const notCheckout = spawn(process.execPath, [script, '--source', scratch], { cwd: project });
  assert.equal(notCheckout.status, 1);
  assert.match(notCheckout.stderr, /is not a checkout of mcpweft/);

  const env = { ...process.env, CARGO_TARGET_DIR: process.env.CARGO_TARGET_DIR || join(repo, 'target') };
  run(process.execPath, [script, '--source', repo, '--debug'], { cwd: project, env, ms: 18 * 60 * 1000 });
  assert.ok(existsSync(join(installed, 'mcpweft.node')), 'the script built the addon into the package');

  writeFileSync(join(project, 'esm.mjs'), consumerEsm);
  const esm = JSON.parse(run(process.execPath, ['esm.mjs'], { cwd: project, ms: 30000 }));
  assert.deepEqual(esm, { tools: ['add'], text: '5' });
  writeFileSync(join(project, 'cjs.cjs'), consumerCjs);
  const cjs = JSON.parse(run(process.execPath, ['cjs.cjs'], { cwd: project, ms: 30000 }));
  assert.deepEqual(cjs, { text: 'hi from CommonJS' });
});
