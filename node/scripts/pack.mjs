#!/usr/bin/env node
// Packs the release tarballs of the npm packages: the main package `mcpweft` and one
// `mcpweft-<platform>` package per prebuilt addon given.
//
//   node scripts/pack.mjs [--out DIR] [--all] ADDON...
//
// Each ADDON is a built native addon named `mcpweft.<platform>.node`, <platform> one of the
// folders of npm/ (napi-rs's names: linux-x64-gnu, darwin-arm64, win32-x64-msvc…); --out is the
// folder the tarballs go to (default: dist/node in CARGO_TARGET_DIR or the workspace's target
// folder), and --all refuses to pack unless every platform of package.json's `napi.targets`
// has its addon, as a release must.
//
// The packages are staged in a temporary folder with the license files, and napi-rs's
// `pre-publish` (without publishing) writes the main package's `optionalDependencies` on the
// platform packages staged beside it, at the main package's version: a main package packed
// with one addon lists that one platform package only. The main package keeps only its
// runtime files (package.json `files`): no Rust sources, no install script, no scripts.

import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NapiCli, parseTriple } from '@napi-rs/cli';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(pkg, '..');
const licenses = ['LICENSE-MIT', 'LICENSE-APACHE'];

/** Prints `message` as the script's one-line error and exits non-zero. */
function fail(message) {
  console.error(`pack: ${message}`);
  process.exit(1);
}

/** The options and addon paths of the command line. */
function parseArgs(argv) {
  const options = { out: join(resolve(repo, process.env.CARGO_TARGET_DIR || 'target'), 'dist', 'node'), all: false, addons: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') options.out = resolve(argv[++i] ?? fail('--out needs a folder'));
    else if (argv[i] === '--all') options.all = true;
    else if (argv[i].startsWith('-')) fail(`unknown option ${argv[i]}`);
    else options.addons.push(resolve(argv[i]));
  }
  return options;
}

/** Runs `npm pack` on `dir` into `out` and returns the tarball's path. */
function npmPack(dir, out) {
  const args = ['pack', dir, '--pack-destination', out, '--json', '--loglevel=error'];
  const result = spawnSync('npm', args, { encoding: 'utf8', shell: process.platform === 'win32' });
  if (result.status !== 0) fail(`npm ${args.join(' ')} failed: ${result.stderr.trim()}`);
  return join(out, JSON.parse(result.stdout)[0].filename);
}

/** Writes `value` to `path` as JSON the way npm does. */
function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Copies the license files into the package folder `dir` and returns `manifest` with them in
 * its `files` (npm packs files named LICENSE by itself, not LICENSE-MIT).
 */
function withLicenses(manifest, dir) {
  for (const license of licenses) cpSync(join(repo, license), join(dir, license));
  return { ...manifest, files: [...manifest.files, ...licenses] };
}

const options = parseArgs(process.argv.slice(2));
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const { binaryName, targets } = manifest.napi;
const platforms = new Map(targets.map((triple) => [parseTriple(triple).platformArchABI, triple]));

const addons = new Map();
for (const addon of options.addons) {
  const platform = basename(addon).match(new RegExp(`^${binaryName}\\.(.+)\\.node$`))?.[1];
  if (platform === undefined || !platforms.has(platform)) {
    fail(`${addon} is not named ${binaryName}.<platform>.node with <platform> one of ${[...platforms.keys()].join(', ')}`);
  }
  if (!statSync(addon, { throwIfNoEntry: false })?.isFile()) fail(`${addon} does not exist`);
  addons.set(platform, addon);
}
if (addons.size === 0) fail('no addon given');
const missing = [...platforms.keys()].filter((platform) => !addons.has(platform));
if (options.all && missing.length > 0) fail(`--all: no addon for ${missing.join(', ')}`);

mkdirSync(options.out, { recursive: true });
const stage = mkdtempSync(join(options.out, '.stage-'));
try {
  const main = join(stage, manifest.name);
  for (const file of ['package.json', ...manifest.files]) cpSync(join(pkg, file), join(main, file), { recursive: true });
  const staged = { ...manifest, napi: { ...manifest.napi, targets: [...addons.keys()].map((p) => platforms.get(p)) } };
  delete staged.scripts;
  writeJson(join(main, 'package.json'), withLicenses(staged, main));
  for (const [platform, addon] of addons) {
    const dir = join(main, 'npm', platform);
    cpSync(join(pkg, 'npm', platform), dir, { recursive: true });
    cpSync(addon, join(dir, `${binaryName}.${platform}.node`));
    writeJson(join(dir, 'package.json'), withLicenses(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), dir));
  }
  await new NapiCli().prePublish({ cwd: main, tagStyle: 'npm', skipOptionalPublish: true, ghRelease: false });

  for (const old of readdirSync(options.out).filter((name) => name.startsWith(`${manifest.name}-`) && name.endsWith('.tgz'))) {
    rmSync(join(options.out, old));
  }
  const tarballs = [npmPack(main, options.out), ...[...addons.keys()].map((platform) => npmPack(join(main, 'npm', platform), options.out))];
  for (const tarball of tarballs) console.error(`pack: ${tarball} (${(statSync(tarball).size / 1e6).toFixed(2)} MB)`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
