#!/usr/bin/env node
// Builds the native addon of mcpweft from its Rust sources, for a platform without a prebuilt
// package or to use an addon of one's own. Opt-in: installing the package never runs it.
//
//   node node_modules/mcpweft/scripts/build-from-source.mjs [--source DIR] [--debug]
//
// It needs cargo (Rust 1.88 or newer). The Rust sources are not in the npm package: --source
// (or MCPWEFT_SOURCE) names a checkout of the mcpweft repository at this package's version;
// without it, git clones the repository (package.json's `repository`) at the tag v<version>
// into a temporary folder, removed after the build. Cargo builds the crate bindings/node
// (release unless --debug) into CARGO_TARGET_DIR, or the checkout's target folder, and the
// library is copied into the package as mcpweft.node, which the loader (lib/native.cjs) then
// prefers to a prebuilt package. Delete that file to go back to the prebuilt addon.
//
// scripts/build.mjs, the development build of a checkout, builds through buildAddon below.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package folder (where mcpweft.node goes). */
export const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The error of a build that cannot go on, with a message for the user. */
export class BuildError extends Error {}

/** The file name cargo gives the addon's library on this platform. */
export const library = { darwin: 'libmcpweft_node.dylib', win32: 'mcpweft_node.dll' }[process.platform] ?? 'libmcpweft_node.so';

/**
 * Builds bindings/node of the checkout `source` with cargo and copies the library to
 * `<pkg>/mcpweft.node`. `debug` picks the profile; `targetDir` is cargo's target folder
 * (CARGO_TARGET_DIR, else `<source>/target`); `env` adds to the build's environment. The type
 * definitions that napi-derive emits go to `<targetDir>/napi-type-defs/<profile>`. Returns
 * that folder.
 */
export function buildAddon({ source, debug = false, targetDir, env = {} }) {
  const manifest = join(source, 'bindings', 'node', 'Cargo.toml');
  if (!existsSync(manifest)) throw new BuildError(`${source} is not a checkout of mcpweft (no bindings/node/Cargo.toml)`);
  const profile = debug ? 'debug' : 'release';
  const target = targetDir ?? (process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(source, 'target'));
  const typeDefs = join(target, 'napi-type-defs', profile);
  mkdirSync(typeDefs, { recursive: true });
  const buildEnv = { ...process.env, ...env, CARGO_TARGET_DIR: target, NAPI_TYPE_DEF_TMP_FOLDER: typeDefs };
  const args = ['build', '--manifest-path', manifest, '-p', 'mcpweft-node', ...(debug ? [] : ['--release'])];
  const cargo = process.env.CARGO ?? 'cargo';
  const result = spawnSync(cargo, args, { stdio: ['ignore', 'inherit', 'inherit'], env: buildEnv });
  if (result.error?.code === 'ENOENT') {
    throw new BuildError(`${cargo} was not found: building from source needs a Rust toolchain (1.88 or newer) on PATH`);
  }
  if (result.error !== undefined || result.status !== 0) {
    throw new BuildError(`${cargo} ${args.join(' ')} failed${result.error ? `: ${result.error.message}` : ''}`);
  }
  const staged = join(pkg, 'mcpweft.node.tmp');
  copyFileSync(join(target, profile, library), staged);
  // A rename replaces the file even while a running process has the old one loaded.
  renameSync(staged, join(pkg, 'mcpweft.node'));
  return typeDefs;
}

/** The workspace version in the checkout `source`'s Cargo.toml. */
function checkoutVersion(source) {
  const manifest = readFileSync(join(source, 'Cargo.toml'), 'utf8');
  return manifest.match(/^\[workspace\.package\][^[]*?^version\s*=\s*"([^"]+)"/m)?.[1];
}

/** Clones the repository of the package at the tag of `version` into a temporary folder. */
function clone(manifest, version) {
  const url = (manifest.repository?.url ?? '').replace(/^git\+/, '');
  if (url === '') throw new BuildError('package.json names no repository to clone: pass --source with a checkout');
  const folder = mkdtempSync(join(tmpdir(), 'mcpweft-source-'));
  const args = ['clone', '--quiet', '--depth', '1', '--branch', `v${version}`, url, folder];
  console.error(`mcpweft: git ${args.join(' ')}`);
  const result = spawnSync('git', args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.error !== undefined || result.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new BuildError(`git clone of ${url} at v${version} failed${result.error ? `: ${result.error.message}` : ''}; clone it yourself and pass --source DIR`);
  }
  return folder;
}

/** Builds the addon from the options of the command line. */
function main(argv) {
  const debug = argv.includes('--debug');
  const at = argv.indexOf('--source');
  let source = at === -1 ? process.env.MCPWEFT_SOURCE || undefined : argv[at + 1];
  const unknown = argv.filter((arg, i) => arg.startsWith('-') && !['--debug', '--source'].includes(arg) && i !== at + 1);
  if (unknown.length > 0 || (at !== -1 && source === undefined)) {
    throw new BuildError('usage: build-from-source.mjs [--source DIR] [--debug]');
  }
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const cloned = source === undefined;
  source = cloned ? clone(manifest, manifest.version) : resolve(source);
  try {
    const version = existsSync(join(source, 'Cargo.toml')) ? checkoutVersion(source) : undefined;
    if (version !== undefined && version !== manifest.version) {
      throw new BuildError(`${source} is at version ${version}, the package at ${manifest.version}: check out the tag v${manifest.version}`);
    }
    const targetDir = cloned && !process.env.CARGO_TARGET_DIR ? join(source, 'target') : undefined;
    buildAddon({ source, debug, targetDir });
    console.error(`mcpweft: built ${join(pkg, 'mcpweft.node')} (${debug ? 'debug' : 'release'})`);
  } finally {
    if (cloned) rmSync(source, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    console.error(`mcpweft: ${error.message}`);
    process.exit(1);
  }
}
