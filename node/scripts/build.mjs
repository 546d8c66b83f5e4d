#!/usr/bin/env node
// Builds the native addon of the package from its Rust crate, bindings/node.
//
//   node scripts/build.mjs [--debug]
//
// Cargo builds the crate (release unless --debug, or MCPWEFT_BUILD_PROFILE=debug in the
// environment, which reaches the script through `npm install` too) into CARGO_TARGET_DIR, or the workspace's
// target folder, so that the build shares its artifacts with every other cargo command of the
// workspace; the library is copied to mcpweft.node, and @napi-rs/cli writes native.d.ts from
// the type definitions that napi-derive emitted during the build. In a packed tarball the
// crate and its path dependencies come along under rust/ (see scripts/pack.mjs); there the
// target folder is removed after the build unless CARGO_TARGET_DIR is set.
//
// npm does not install the dependencies of a folder it links (`npm install ./node`), so when
// @napi-rs/cli cannot be found, the package's own lockfile installs it first.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Imports @napi-rs/cli, installing the package's dependencies from its lockfile if need be. */
async function napiCli() {
  try {
    return await import('@napi-rs/cli');
  } catch (error) {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  }
  const args = ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  const npm = spawnSync('npm', args, { cwd: pkg, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (npm.status !== 0) throw new Error(`mcpweft: npm ${args.join(' ')} failed in ${pkg}`);
  return import('@napi-rs/cli');
}

const { generateTypeDef } = await napiCli();
const packed = join(pkg, 'rust');
const workspace = existsSync(join(packed, 'Cargo.toml')) ? packed : resolve(pkg, '..');
const manifest = join(workspace, 'bindings', 'node', 'Cargo.toml');
const debug = process.argv.includes('--debug') || process.env.MCPWEFT_BUILD_PROFILE === 'debug';
const profile = debug ? 'debug' : 'release';
const ownTarget = process.env.CARGO_TARGET_DIR === undefined || process.env.CARGO_TARGET_DIR === '';
const target = ownTarget ? join(workspace, 'target') : resolve(workspace, process.env.CARGO_TARGET_DIR);
const typeDefs = join(target, 'napi-type-defs', profile);

mkdirSync(typeDefs, { recursive: true });
const env = { ...process.env, CARGO_TARGET_DIR: target, NAPI_TYPE_DEF_TMP_FOLDER: typeDefs };
if (!existsSync(join(typeDefs, 'mcpweft-node'))) env.NAPI_FORCE_BUILD_MCPWEFT_NODE = String(Date.now());
const args = ['build', '--manifest-path', manifest, '-p', 'mcpweft-node', ...(profile === 'release' ? ['--release'] : [])];
const cargo = spawnSync(process.env.CARGO ?? 'cargo', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
if (cargo.error !== undefined || cargo.status !== 0) {
  console.error(`mcpweft: cargo ${args.join(' ')} failed${cargo.error ? `: ${cargo.error.message}` : ''}`);
  process.exit(1);
}

const library = { darwin: 'libmcpweft_node.dylib', win32: 'mcpweft_node.dll' }[process.platform] ?? 'libmcpweft_node.so';
const staged = join(pkg, 'mcpweft.node.tmp');
copyFileSync(join(target, profile, library), staged);
// A rename replaces the file even while a running process has the old one loaded.
renameSync(staged, join(pkg, 'mcpweft.node'));

const { dts } = await generateTypeDef({ typeDefDir: typeDefs, cwd: pkg });
writeFileSync(join(pkg, 'native.d.ts'), dts);

if (workspace === packed && ownTarget) rmSync(target, { recursive: true, force: true });
