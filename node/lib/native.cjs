'use strict';
// Loads the native addon: mcpweft.node in the package folder when there is one (built by
// scripts/build.mjs in a checkout, or by scripts/build-from-source.mjs), else the prebuilt
// addon of this platform's package, `mcpweft-<platform>`, which npm installs as an optional
// dependency of mcpweft (it skips the packages whose os, cpu and libc do not match).

const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** The platforms with a prebuilt package, in napi-rs's names (package.json `napi.targets`). */
const PLATFORMS = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-msvc',
];

/** Whether this Linux runs on musl: ldd names its libc; else a glibc reports its version. */
function isMusl() {
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
  } catch {
    process.report.excludeNetwork = true;
    return !process.report.getReport().header.glibcVersionRuntime;
  }
}

/** This process's platform in napi-rs's names, e.g. linux-x64-gnu or win32-x64-msvc. */
function platform() {
  if (process.platform === 'linux') return `linux-${process.arch}-${isMusl() ? 'musl' : 'gnu'}`;
  if (process.platform === 'win32') return `win32-${process.arch}-msvc`;
  return `${process.platform}-${process.arch}`;
}

const script = join(__dirname, '..', 'scripts', 'build-from-source.mjs');
const fromSource = `build the addon from source with \`node ${script}\` (it needs Rust 1.88 or newer and a checkout of the repository or git; see "Install" in the package's README)`;

/** Loads the addon built in the package folder, or the prebuilt one of this platform. */
function load() {
  const local = join(__dirname, '..', 'mcpweft.node');
  if (existsSync(local)) {
    try {
      return require(local);
    } catch (error) {
      throw new Error(`mcpweft: the native addon ${local} could not be loaded (delete it to use the prebuilt one)`, { cause: error });
    }
  }
  const name = platform();
  if (!PLATFORMS.includes(name)) {
    throw new Error(`mcpweft: no prebuilt native addon for ${name}; prebuilt packages exist for ${PLATFORMS.join(', ')}. On this platform, ${fromSource}.`);
  }
  const prebuilt = `mcpweft-${name}`;
  try {
    return require(prebuilt);
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND' && error.message.includes(`'${prebuilt}'`)) {
      throw new Error(
        `mcpweft: the package ${prebuilt}, which holds the prebuilt native addon of this platform, is not installed. npm installs it with mcpweft unless optional dependencies are omitted (--omit=optional) or a lockfile made on another platform left it out: reinstall mcpweft, or ${fromSource}.`,
        { cause: error },
      );
    }
    throw new Error(`mcpweft: the native addon of ${prebuilt} could not be loaded`, { cause: error });
  }
}

module.exports = load();
