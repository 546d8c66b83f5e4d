// The npm packages of `make dist` (target/dist/node: the main package and this platform's
// prebuilt one) install into a fresh project offline, with no cargo on PATH and no install
// script, in seconds; the calculator example then serves the official TypeScript SDK's client
// from the installed package, from ESM and from CommonJS. The loader's errors for a platform
// without a prebuilt package, and for a missing platform package, name the way out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const pkg = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const repo = resolve(pkg, '..');
const dist = join(resolve(repo, process.env.CARGO_TARGET_DIR || 'target'), 'dist', 'node');
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const platform = 'linux-x64-gnu';
const tarballs = [`mcpweft-${manifest.version}.tgz`, `mcpweft-${platform}-${manifest.version}.tgz`].map((name) => join(dist, name));
const platforms = readdirSync(join(pkg, 'npm')).sort();

/** PATH without the folders that hold cargo or rustc, and an environment with it. */
const path = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && !existsSync(join(dir, 'cargo')) && !existsSync(join(dir, 'rustc')));
if (!path.includes(dirname(process.execPath))) path.unshift(dirname(process.execPath));
const env = { ...process.env, PATH: path.join(delimiter) };
delete env.CARGO;

/** Runs `command args...` in `cwd` with `env`, failing the test if it fails; returns the output and the time taken. */
function run(command, args, { cwd, ms = 120000 }) {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: ms, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  assert.equal(result.error, undefined, `${command} ${args.join(' ')}: ${result.error?.message}`);
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr, seconds };
}

/** Runs node with `args` in `cwd` and returns its exit status and output. */
function node(args, cwd) {
  return spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 30000 });
}

/** The median of `values`. */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A CommonJS calculator server over stdio, written with the installed package and zod. */
const calculatorCjs = `
const { Server } = require('mcpweft');
const { z } = require('zod');
const server = new Server({ name: 'calculator-cjs', version: '1.0.0' });
server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
  ({ a, b }) => ({ sum: a + b }));
server.serveStdio();
`;

/** Connects the official TypeScript SDK's client to `node script` in `cwd` over stdio. */
async function sdkClient(script, cwd) {
  const client = new Client({ name: 'dist-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], cwd, env, stderr: 'inherit' }));
  return client;
}

test('the npm packages of make dist install offline without Rust and serve the official client', { timeout: 5 * 60 * 1000 }, async (t) => {
  const absent = tarballs.filter((tarball) => !existsSync(tarball));
  assert.deepEqual(absent, [], `the npm packages are missing: run \`make dist\` (or \`make dist-node\`) first`);
  for (const tarball of tarballs) t.diagnostic(`${tarball}: ${(statSync(tarball).size / 1e6).toFixed(2)} MB`);
  // The packages' limit, 10 MB, unless MCPWEFT_DIST_MAX_MB allows more (make test's unoptimized builds).
  const maxMb = Number(process.env.MCPWEFT_DIST_MAX_MB ?? 10);
  for (const tarball of tarballs) assert.ok(statSync(tarball).size < maxMb * 1e6, `${tarball} is under ${maxMb} MB`);
  assert.equal(spawnSync('cargo', ['--version'], { env }).error?.code, 'ENOENT', 'cargo is not on the test PATH');

  const scratch = mkdtempSync(join(tmpdir(), 'mcpweft-dist-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const project = join(scratch, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));

  const npm = ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=warn'];
  const install = run('npm', [...npm, ...tarballs], { cwd: project });
  t.diagnostic(`npm install of the two tarballs (offline, no cargo): ${install.seconds.toFixed(2)} s on Node ${process.version}`);
  assert.doesNotMatch(`${install.stdout}${install.stderr}`, /warn|EBADENGINE|deprecated/i, 'npm install prints no warning');
  const installed = join(project, 'node_modules', 'mcpweft');
  const files = readdirSync(installed, { recursive: true });
  assert.deepEqual(files.filter((file) => /^(rust|target|test)\b|\.node$|\.rs$/.test(file)), [], 'no Rust sources or addon in the main package');
  const installedManifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(installedManifest.scripts ?? {}), [], 'the main package has no scripts');
  assert.deepEqual(Object.keys(installedManifest.dependencies ?? {}), [], 'the main package has no dependencies');
  assert.equal(installedManifest.optionalDependencies[`mcpweft-${platform}`], manifest.version);
  assert.ok(install.seconds < 30, `the install took ${install.seconds.toFixed(1)} s`);
  const prebuiltDir = join(project, 'node_modules', `mcpweft-${platform}`);
  const prebuilt = JSON.parse(readFileSync(join(prebuiltDir, 'package.json'), 'utf8'));
  assert.deepEqual([prebuilt.os, prebuilt.cpu, prebuilt.libc], [['linux'], ['x64'], ['glibc']]);
  // The addon binds no glibc symbol newer than 2.17 (checked when binutils' objdump is here).
  const symbols = spawnSync('objdump', ['-T', join(prebuiltDir, prebuilt.main)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (symbols.error === undefined) {
    const versions = [...new Set(symbols.stdout.match(/GLIBC_\d+\.\d+/g))].map((v) => v.slice(6).split('.').map(Number));
    const newest = versions.reduce((a, b) => (a[0] - b[0] || a[1] - b[1]) >= 0 ? a : b);
    t.diagnostic(`${prebuilt.main}: ${(statSync(join(prebuiltDir, prebuilt.main)).size / 1e6).toFixed(1)} MB, needs GLIBC_${newest.join('.')}`);
    assert.ok(newest[0] === 2 && newest[1] <= 17, `the addon needs GLIBC_${newest.join('.')}`);
  }

  // zod, the example's schema library, comes from the checkout's node_modules (no registry).
  const zod = JSON.parse(run('npm', ['pack', join(pkg, 'node_modules', 'zod'), '--pack-destination', scratch, '--json', '--loglevel=error'], { cwd: scratch }).stdout)[0];
  run('npm', [...npm, join(scratch, zod.filename)], { cwd: project });

  const requireMs = [];
  for (let i = 0; i < 5; i++) {
    const timed = node(['-e', "const t = performance.now(); const m = require('mcpweft'); console.log(performance.now() - t, m.version)"], project);
    assert.equal(timed.status, 0, timed.stderr);
    const [ms, version] = timed.stdout.trim().split(' ');
    assert.equal(version, manifest.version);
    requireMs.push(Number(ms));
  }
  t.diagnostic(`require('mcpweft'): median ${median(requireMs).toFixed(1)} ms of ${requireMs.map((ms) => ms.toFixed(1)).join(', ')}`);

  cpSync(join(pkg, 'examples', 'calculator.mjs'), join(project, 'calculator.mjs'));
  // The package's command, as `npx mcpweft` runs it, lists the example's tools over stdio.
  const listed = run('npx', ['--offline', 'mcpweft', 'tools', '--', process.execPath, 'calculator.mjs'], { cwd: project });
  assert.deepEqual(listed.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]), ['add', 'divide', 'count']);
  const esm = await sdkClient('calculator.mjs', project);
  try {
    assert.equal(esm.getServerVersion()?.name, 'calculator');
    const { tools } = await esm.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ['add', 'divide', 'count']);
    const sum = await esm.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    const divide = await esm.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
    assert.equal(divide.isError, true);
    const constants = await esm.readResource({ uri: 'calc://constants/pi' });
    assert.equal(constants.contents[0].text, String(Math.PI));
  } finally {
    await esm.close();
  }

  writeFileSync(join(project, 'calculator.cjs'), calculatorCjs);
  const cjs = await sdkClient('calculator.cjs', project);
  try {
    assert.equal(cjs.getServerVersion()?.name, 'calculator-cjs');
    const sum = await cjs.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    assert.deepEqual(sum.structuredContent, { sum: 42 });
  } finally {
    await cjs.close();
  }

  // A platform without a prebuilt package: the loader names the supported ones and the build.
  writeFileSync(join(scratch, 'freebsd.cjs'), "Object.defineProperty(process, 'platform', { value: 'freebsd' });\n");
  const unsupported = node(['--require', join(scratch, 'freebsd.cjs'), '-e', "require('mcpweft')"], project);
  assert.notEqual(unsupported.status, 0);
  assert.match(unsupported.stderr, new RegExp(`mcpweft: no prebuilt native addon for freebsd-${process.arch}; prebuilt packages exist for `));
  for (const name of platforms) assert.match(unsupported.stderr, new RegExp(`\\b${name}\\b`), `the error names ${name}`);
  assert.match(unsupported.stderr, /build the addon from source with `node .*node_modules\/mcpweft\/scripts\/build-from-source\.mjs`/);

  // The main package without its platform package (optional dependencies omitted).
  const alone = join(scratch, 'alone');
  cpSync(installed, join(alone, 'node_modules', 'mcpweft'), { recursive: true });
  const missing = node(['-e', "require('mcpweft')"], alone);
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, new RegExp(`mcpweft: the package mcpweft-${platform}, which holds the prebuilt native addon of this platform, is not installed`));
});
