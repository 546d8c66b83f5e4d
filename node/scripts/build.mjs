#!/usr/bin/env node
// Builds the native addon of the package in a checkout of the repository, for development.
//
//   node scripts/build.mjs [--debug]
//
// Cargo builds the crate bindings/node (release unless --debug, or MCPWEFT_BUILD_PROFILE=debug
// in the environment) into CARGO_TARGET_DIR, or the workspace's target folder, so that the
// build shares its artifacts with every other cargo command of the workspace; the library is
// copied to mcpweft.node, which the loader prefers to a prebuilt platform package, and
// @napi-rs/cli (a development dependency: `npm ci` first) writes native.d.ts from the type
// definitions that napi-derive emitted during the build. The release packages are built by
// scripts/dist.sh instead.

import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateTypeDef } from '@napi-rs/cli';
import { BuildError, buildAddon, library, pkg } from './build-from-source.mjs';

const workspace = resolve(pkg, '..');
const debug = process.argv.includes('--debug') || process.env.MCPWEFT_BUILD_PROFILE === 'debug';
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(workspace, process.env.CARGO_TARGET_DIR) : join(workspace, 'target');
// napi-derive writes the type definitions only when it compiles the crate: force that once
// when the folder has none but the library is there, as after a build by another cargo
// command. Without the library cargo compiles the crate anyway, and leaving the environment
// as it is lets the next build (the install test's) reuse this one.
const profile = debug ? 'debug' : 'release';
const env = {};
if (!existsSync(join(targetDir, 'napi-type-defs', profile, 'mcpweft-node')) && existsSync(join(targetDir, profile, library))) {
  env.NAPI_FORCE_BUILD_MCPWEFT_NODE = String(Date.now());
}
let typeDefs;
try {
  typeDefs = buildAddon({ source: workspace, debug, targetDir, env });
} catch (error) {
  if (!(error instanceof BuildError)) throw error;
  console.error(`mcpweft: ${error.message}`);
  process.exit(1);
}
const { dts } = await generateTypeDef({ typeDefDir: typeDefs, cwd: pkg });
writeFileSync(join(pkg, 'native.d.ts'), dts);
