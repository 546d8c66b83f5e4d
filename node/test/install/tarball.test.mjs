// The packed tarball installs into a fresh project the way users install it: `npm install
// mcpweft-x.y.z.tgz` runs the package's install script, which builds the addon from the Rust
// sources in the tarball. The build is a debug one in the workspace's target folder, so only
// the three crates of the tarball compile; everything else comes from cargo's cache. The
// installed package then serves a tool to its own client, from ESM and from CommonJS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const repo = resolve(pkg, '..');

/** Runs `command args...` in `cwd` within `ms`, failing the test if it fails. */
function run(command, args, { cwd, env = process.env, ms }) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: ms, maxBuffer: 64 * 1024 * 1024 });
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

test('the packed tarball installs, builds its addon and serves', { timeout: 20 * 60 * 1000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpweft-install-'));
  try {
    const packed = JSON.parse(run('npm', ['pack', pkg, '--pack-destination', scratch, '--json', '--loglevel=error'], { cwd: scratch, ms: 120000 }));
    const project = join(scratch, 'project');
    run('mkdir', [project], { cwd: scratch });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const env = {
      ...process.env,
      CARGO_TARGET_DIR: process.env.CARGO_TARGET_DIR || join(repo, 'target'),
      MCPWEFT_BUILD_PROFILE: 'debug',
    };
    const tarball = join(scratch, packed[0].filename);
    run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, env, ms: 18 * 60 * 1000 });
    const installed = join(project, 'node_modules', 'mcpweft');
    assert.ok(existsSync(join(installed, 'mcpweft.node')), 'the install script built the addon');
    assert.ok(!existsSync(join(installed, 'rust', 'target')), 'no build folder is left in the package');

    writeFileSync(join(project, 'esm.mjs'), consumerEsm);
    const esm = JSON.parse(run('node', ['esm.mjs'], { cwd: project, ms: 30000 }));
    assert.deepEqual(esm, { tools: ['add'], text: '5' });
    writeFileSync(join(project, 'cjs.cjs'), consumerCjs);
    const cjs = JSON.parse(run('node', ['cjs.cjs'], { cwd: project, ms: 30000 }));
    assert.deepEqual(cjs, { text: 'hi from CommonJS' });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
