// `npm pack` makes a tarball that an install can build from: the JavaScript entry points and
// types, the lockfile of the build tool, the build script, and the Rust sources of the addon
// (the glue, the bridge and the core) in a workspace of their own that resolves offline with
// its lockfile. Building that workspace would take minutes, so it is checked, not built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(fileURLToPath(new URL('..', import.meta.url)));
const repo = resolve(pkg, '..');

/** Runs `command args...` to completion within `ms`, failing the test if it fails. */
function run(command, args, { cwd, ms = 60000 } = {}) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: ms, maxBuffer: 64 * 1024 * 1024 });
  assert.equal(result.error, undefined, `${command} ${args.join(' ')}: ${result.error?.message}`);
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

/** The files of `dir` (relative to `root`) whose names end with `suffix`, recursively. */
function sources(root, dir, suffix) {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

test('npm pack makes a tarball an install can build the addon from', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpweft-pack-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const args = ['pack', pkg, '--pack-destination', scratch, '--json', '--loglevel=error'];
  const [packed] = JSON.parse(run('npm', args, { cwd: scratch }));
  const files = new Set(packed.files.map((file) => file.path));

  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const entryPoints = [manifest.main, manifest.types, ...Object.values(manifest.exports['.']).flatMap(Object.values)];
  const javascript = [...entryPoints.map((path) => path.replace(/^\.\//, '')), ...sources(pkg, 'lib', '.cjs')];
  const rust = ['core', 'bindings/bridge', 'bindings/node'].flatMap((crate) => [
    `rust/${crate}/Cargo.toml`,
    ...sources(repo, `${crate}/src`, '.rs').map((path) => `rust/${path}`),
  ]);
  const needed = ['package.json', 'native.d.ts', 'npm-shrinkwrap.json', 'scripts/build.mjs', 'README.md'];
  needed.push('rust/Cargo.toml', 'rust/Cargo.lock', 'rust/bindings/node/build.rs', ...javascript, ...rust);
  assert.deepEqual(needed.filter((path) => !files.has(path)), [], 'files missing from the tarball');
  const stray = [...files].filter((path) => /^(mcpweft\.node|node_modules\/|test\/|rust\/target\/)/.test(path));
  assert.deepEqual(stray, [], 'files that must stay out of the tarball');
  assert.equal(manifest.scripts.install, 'node scripts/build.mjs');
  // The install script needs @napi-rs/cli, which the shipped lockfile pins.
  const shrinkwrap = JSON.parse(readFileSync(join(pkg, 'npm-shrinkwrap.json'), 'utf8'));
  assert.equal(shrinkwrap.packages['node_modules/@napi-rs/cli']?.version, manifest.dependencies['@napi-rs/cli']);

  // The staged sources are removed again once packed, and the tarball's workspace resolves.
  assert.deepEqual(readdirSync(pkg).filter((name) => name === 'rust'), []);
  run('tar', ['xzf', join(scratch, packed.filename), '-C', scratch]);
  const workspace = join(scratch, 'package', 'rust', 'Cargo.toml');
  const metadata = JSON.parse(run('cargo', ['metadata', '--format-version', '1', '--offline', '--manifest-path', workspace]));
  const members = metadata.packages.filter((p) => metadata.workspace_members.includes(p.id)).map((p) => p.name);
  assert.deepEqual(members.sort(), ['mcpweft', 'mcpweft-bridge', 'mcpweft-node']);
});
