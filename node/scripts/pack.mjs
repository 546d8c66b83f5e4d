#!/usr/bin/env node
// Stages the Rust sources a packed tarball needs to build its addon (npm `prepack`), or
// removes them again (`--clean`, npm `postpack`).
//
//   node scripts/pack.mjs [--clean]
//
// The glue crate depends on the bridge and the core by path, so the tarball carries all three
// under rust/, with the workspace's Cargo.lock and a workspace manifest that lists only them;
// scripts/build.mjs builds from there when rust/ exists.

import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(pkg, '..');
const staged = join(pkg, 'rust');
const crates = ['core', 'bindings/bridge', 'bindings/node'];

/**
 * Returns `manifest` without its `[[test]]`, `[[example]]` and `[[bench]]` tables, whose files
 * stay out of the tarball (cargo refuses a manifest that names a missing target).
 */
function withoutLeftOutTargets(manifest) {
  const tables = manifest.split(/^(?=\[)/m);
  return tables.filter((table) => !/^\[\[(test|example|bench)\]\]/.test(table)).join('');
}

rmSync(staged, { recursive: true, force: true });
if (!process.argv.includes('--clean')) {
  for (const crate of crates) {
    cpSync(join(repo, crate), join(staged, crate), {
      recursive: true,
      filter: (source) => !/[\\/](target|tests|examples)$/.test(source),
    });
  }
  for (const crate of crates) {
    const path = join(staged, crate, 'Cargo.toml');
    writeFileSync(path, withoutLeftOutTargets(readFileSync(path, 'utf8')));
  }
  cpSync(join(repo, 'Cargo.lock'), join(staged, 'Cargo.lock'));
  const manifest = readFileSync(join(repo, 'Cargo.toml'), 'utf8')
    .replace(/^members = .*$/m, `members = ${JSON.stringify(crates)}`)
    .replace(/^default-members = .*$/m, 'default-members = ["bindings/node"]');
  writeFileSync(join(staged, 'Cargo.toml'), manifest);
}
