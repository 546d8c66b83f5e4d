// The main package holds JavaScript only: `npm pack` of the checkout makes a tarball of the
// entry points, types, the loader, the examples the README names and the opt-in
// build-from-source script, without Rust
// sources, addon or install script. The per-platform packages of npm/ (napi-rs's layout) match
// package.json's `napi.targets`, and the loader knows the same platforms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTriple } from '@napi-rs/cli';

const pkg = resolve(fileURLToPath(new URL('..', import.meta.url)));
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));

/** The files of `dir` (relative to the package) whose names end with `suffix`. */
function sources(dir, suffix) {
  return readdirSync(join(pkg, dir))
    .filter((name) => name.endsWith(suffix))
    .map((name) => `${dir}/${name}`);
}

test('npm pack makes a main package of JavaScript, types, the loader, the command and the examples only', () => {
  const args = ['pack', pkg, '--dry-run', '--json', '--loglevel=error'];
  const result = spawnSync('npm', args, { cwd: pkg, encoding: 'utf8', timeout: 60000 });
  assert.equal(result.status, 0, `npm ${args.join(' ')} failed:\n${result.stderr}`);
  const files = JSON.parse(result.stdout)[0].files.map((file) => file.path).sort();

  const entryPoints = [manifest.main, manifest.types, ...Object.values(manifest.exports['.']).flatMap(Object.values)];
  const expected = new Set([
    'package.json',
    'README.md',
    'native.d.ts',
    'scripts/build-from-source.mjs',
    ...entryPoints.map((path) => path.replace(/^\.\//, '')),
    ...sources('lib', '.cjs'),
    // The `mcpweft` command (package.json `bin`).
    ...Object.values(manifest.bin),
    // The examples the README names ship with the package.
    ...sources('examples', '.mjs'),
  ]);
  assert.deepEqual(files, [...expected].sort());
  const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'];
  assert.deepEqual(Object.keys(manifest.scripts ?? {}).filter((name) => lifecycle.includes(name)), [], 'no install or pack script');
  assert.deepEqual(manifest.dependencies ?? {}, {}, 'no runtime dependency');
  assert.ok(manifest.devDependencies['@napi-rs/cli'], '@napi-rs/cli is a development dependency');
});

test('npm/ holds one package per napi target, with its os, cpu and libc', () => {
  const targets = manifest.napi.targets.map(parseTriple);
  const platforms = targets.map((target) => target.platformArchABI);
  assert.deepEqual(readdirSync(join(pkg, 'npm')).sort(), [...platforms].sort());
  for (const target of targets) {
    const name = target.platformArchABI;
    const platform = JSON.parse(readFileSync(join(pkg, 'npm', name, 'package.json'), 'utf8'));
    assert.equal(platform.name, `${manifest.name}-${name}`);
    assert.equal(platform.version, manifest.version, `${platform.name} is at the main package's version`);
    assert.equal(platform.main, `${manifest.napi.binaryName}.${name}.node`);
    assert.deepEqual(platform.files, [platform.main]);
    assert.deepEqual(platform.os, [target.platform]);
    assert.deepEqual(platform.cpu, [target.arch]);
    const libc = { gnu: ['glibc'], musl: ['musl'] }[target.abi];
    assert.deepEqual(platform.libc, target.platform === 'linux' ? libc : undefined, `${name}'s libc`);
    assert.deepEqual(platform.engines, manifest.engines);
  }

  // The loader's list of prebuilt platforms is the same.
  const loader = readFileSync(join(pkg, 'lib', 'native.cjs'), 'utf8');
  const listed = loader.match(/const PLATFORMS = \[([^\]]*)\]/)[1].match(/'[^']+'/g).map((quoted) => quoted.slice(1, -1));
  assert.deepEqual(listed, platforms);
});
