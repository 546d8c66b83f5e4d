// Interoperability tests between mcpweft (Rust) and the official MCP
// TypeScript SDK. Run from this directory with:  npm ci && node --test
//
//   (a) ts_client.mjs (TS SDK client)  ->  Rust calculator_server
//   (b) Rust calculator_client         ->  ts_server.mjs (TS SDK server)
//   (c) ts_client.mjs                  ->  ts_server.mjs (sanity: the TS pair
//       agrees with the contract on its own, so a failure of (a) or (b) points
//       at the Rust side)
//
// The Rust binaries come from `cargo build -p mcpweft --examples` and are
// looked up in $CARGO_TARGET_DIR (relative paths are taken from the
// repository root) or else <repo>/target.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '..', '..');
const TARGET_DIR = process.env.CARGO_TARGET_DIR
  ? resolve(REPO_ROOT, process.env.CARGO_TARGET_DIR)
  : join(REPO_ROOT, 'target');
const EXAMPLES_DIR = join(TARGET_DIR, 'debug', 'examples');
const RUST_SERVER = join(EXAMPLES_DIR, 'calculator_server');
const RUST_CLIENT = join(EXAMPLES_DIR, 'calculator_client');
const TS_SERVER = join(HERE, 'ts_server.mjs');
const TS_CLIENT = join(HERE, 'ts_client.mjs');
const NODE = process.execPath;
// `mcpweft proxy URL` in front of the conformance fixture served over HTTP (tests (f) and (g)):
// the command line from `cargo build -p mcpweft-cli`, the fixture from
// `tests/conformance/server-rust --build`, and the official Python SDK in <repo>/.venv.
const MCPWEFT = join(TARGET_DIR, 'debug', 'mcpweft');
const FIXTURE_SERVER = join(TARGET_DIR, 'debug', 'conformance-server');
const PYTHON = join(REPO_ROOT, '.venv', 'bin', 'python');
const TS_PROXY_CLIENT = join(HERE, 'ts_proxy_client.mjs');
const PY_PROXY_CLIENT = join(HERE, 'py_proxy_client.py');

const TEST_TIMEOUT_MS = 30_000;
// Children are killed a little before the test timeout so that their output
// can still be reported.
const CHILD_TIMEOUT_MS = 25_000;

// Every child runs in its own process group, so that killing the group also
// kills the server that a client spawned.
const running = new Set();

// Kills the child's whole process group, even when the child itself has
// already exited: a server it spawned may still be alive and holding our pipes.
function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // group already empty
  }
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

// How long a child's descendants may keep its output pipes open after the
// child itself has exited before they are killed.
const LINGER_MS = 3_000;

after(() => {
  for (const child of running) killGroup(child);
});

/** Runs a command to completion (or timeout); resolves with its output. */
function run(command, args, { timeoutMs = CHILD_TIMEOUT_MS, env = {} } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, ...env },
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    let lingerTimer;
    child.on('exit', () => {
      lingerTimer = setTimeout(() => killGroup(child), LINGER_MS);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      running.delete(child);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(lingerTimer);
      // Whatever the child left behind in its group goes too.
      killGroup(child);
      running.delete(child);
      resolvePromise({ code, signal, stdout, stderr, timedOut });
    });
  });
}

function describeRun(what, r) {
  return [
    `${what}: ${r.timedOut ? `timed out after ${CHILD_TIMEOUT_MS} ms` : `exit code ${r.code}${r.signal ? `, signal ${r.signal}` : ''}`}`,
    '--- stdout ---',
    r.stdout.trimEnd(),
    '--- stderr ---',
    r.stderr.trimEnd(),
    '--------------',
  ].join('\n');
}

function requireBinary(path) {
  assert.ok(
    existsSync(path),
    `Rust example binary not found: ${path}\n` +
      `Build it first with:  cargo build -p mcpweft --examples\n` +
      `(binaries are looked up in $CARGO_TARGET_DIR/debug/examples, else <repo>/target/debug/examples)`,
  );
}

test('(a) TS SDK client against the Rust calculator_server', { timeout: TEST_TIMEOUT_MS }, async () => {
  requireBinary(RUST_SERVER);
  const r = await run(NODE, [TS_CLIENT, RUST_SERVER]);
  const report = describeRun(`node ts_client.mjs ${RUST_SERVER}`, r);
  assert.ok(!r.timedOut, report);
  assert.equal(r.code, 0, report);
  assert.match(r.stdout, /all \d+ checks passed/, report);
});

test('(b) Rust calculator_client against the TS SDK server', { timeout: TEST_TIMEOUT_MS }, async () => {
  requireBinary(RUST_CLIENT);
  const r = await run(RUST_CLIENT, [NODE, TS_SERVER]);
  const report = describeRun(`calculator_client node ts_server.mjs`, r);
  assert.ok(!r.timedOut, report);
  assert.equal(r.code, 0, report);

  const lines = r.stdout.split(/\r?\n/).map((l) => l.trim());
  const indexOf = (pred) => lines.findIndex(pred);
  const expectLine = (description, pred) => {
    const i = indexOf(pred);
    assert.ok(i >= 0, `calculator_client printed no line ${description}\n${report}`);
    return i;
  };

  expectLine('"add(2, 3) = 5"', (l) => l === 'add(2, 3) = 5');
  const p1 = expectLine('starting "progress 1/3"', (l) => l.startsWith('progress 1/3'));
  const p2 = expectLine('starting "progress 2/3"', (l) => l.startsWith('progress 2/3'));
  const p3 = expectLine('starting "progress 3/3"', (l) => l.startsWith('progress 3/3'));
  assert.ok(p1 < p2 && p2 < p3, `progress lines out of order\n${report}`);
  const logLines = lines.filter((l) => l.startsWith('log info:'));
  assert.ok(
    logLines.length >= 3,
    `expected a "log info: ..." line for each of the 3 notifications/message sent by count(3), got ${logLines.length}\n${report}`,
  );
  expectLine('starting "resource calc://constants:"', (l) => l.startsWith('resource calc://constants:'));
  assert.ok(r.stdout.includes('3.141592653589793'), `the contents of calc://constants (pi) were not printed\n${report}`);
  expectLine('starting "prompt explain:"', (l) => l.startsWith('prompt explain:'));
  assert.ok(
    r.stdout.includes('Explain step by step how to compute 2+3.'),
    `the text of prompt "explain" was not printed\n${report}`,
  );
});

// Revision 2026-07-28: the mcpweft client prefers it (MCP_PROTOCOL_VERSION), asks server/discover
// first, and falls back to initialize with a server that does not know the revision.
const NEXT = { MCP_PROTOCOL_VERSION: '2026-07-28' };

test('(d) Rust client preferring 2026-07-28 falls back to 2025-11-25 with the TS SDK server', { timeout: TEST_TIMEOUT_MS }, async () => {
  requireBinary(RUST_CLIENT);
  const r = await run(RUST_CLIENT, [NODE, TS_SERVER], { env: NEXT });
  const report = describeRun('MCP_PROTOCOL_VERSION=2026-07-28 calculator_client node ts_server.mjs', r);
  assert.ok(!r.timedOut, report);
  assert.equal(r.code, 0, report);
  assert.match(r.stdout, /connected to ts-calculator-server .*\(protocol 2025-11-25\)/, report);
  assert.match(r.stdout, /^add\(2, 3\) = 5$/m, report);
  assert.match(r.stdout, /^prompt explain:/m, report);
});

test('(e) Rust client and server speak 2026-07-28; the TS SDK client still gets 2025-11-25 from the same server program', { timeout: TEST_TIMEOUT_MS }, async () => {
  requireBinary(RUST_CLIENT);
  requireBinary(RUST_SERVER);
  const [next, ts] = await Promise.all([
    run(RUST_CLIENT, [RUST_SERVER], { env: NEXT }),
    run(NODE, [TS_CLIENT, RUST_SERVER]),
  ]);
  const report = describeRun('MCP_PROTOCOL_VERSION=2026-07-28 calculator_client calculator_server', next);
  assert.equal(next.code, 0, report);
  assert.match(next.stdout, /\(protocol 2026-07-28\)/, report);
  assert.match(next.stdout, /^add\(2, 3\) = 5$/m, report);
  assert.match(next.stdout, /^progress 3\/3/m, report);
  assert.ok(next.stdout.split('\n').filter((l) => l.startsWith('log info:')).length >= 3, report);
  const tsReport = describeRun(`node ts_client.mjs ${RUST_SERVER}`, ts);
  assert.equal(ts.code, 0, tsReport);
  assert.match(ts.stdout, /all \d+ checks passed/, tsReport);
});

test('(c) sanity: TS SDK client against the TS SDK server', { timeout: TEST_TIMEOUT_MS }, async () => {
  const r = await run(NODE, [TS_CLIENT, NODE, TS_SERVER]);
  const report = describeRun('node ts_client.mjs node ts_server.mjs', r);
  assert.ok(!r.timedOut, report);
  assert.equal(r.code, 0, report);
  assert.match(r.stdout, /all \d+ checks passed/, report);
});

/** Serves the conformance fixture over HTTP on a free port while `use(url)` runs. */
async function withFixtureOverHttp(use) {
  requireBinary(FIXTURE_SERVER);
  requireBinary(MCPWEFT);
  const server = spawn(FIXTURE_SERVER, ['0'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  running.add(server);
  try {
    const url = await new Promise((resolvePromise, reject) => {
      let stderr = '';
      server.stderr.setEncoding('utf8').on('data', (d) => {
        stderr += d;
        const serving = stderr.match(/serving (http:\/\/\S+)/);
        if (serving) resolvePromise(serving[1]);
      });
      server.on('error', reject);
      server.on('exit', (code) => reject(new Error(`the fixture server exited with code ${code}: ${stderr}`)));
    });
    return await use(url);
  } finally {
    killGroup(server);
    running.delete(server);
  }
}

test('(f) TS SDK client over stdio through `mcpweft proxy URL` to the Rust fixture over HTTP', { timeout: TEST_TIMEOUT_MS }, async () => {
  await withFixtureOverHttp(async (url) => {
    const r = await run(NODE, [TS_PROXY_CLIENT, MCPWEFT, 'proxy', url]);
    const report = describeRun(`node ts_proxy_client.mjs mcpweft proxy ${url}`, r);
    assert.equal(r.code, 0, report);
    assert.match(r.stdout, /all \d+ checks passed \(2025-11-25\)/, report);
  });
});

for (const [mode, version] of [['legacy', '2025-11-25'], ['auto', '2026-07-28']]) {
  test(`(g) Python SDK client over stdio through \`mcpweft proxy URL\` to the Rust fixture over HTTP, ${version}`, { timeout: TEST_TIMEOUT_MS }, async () => {
    assert.ok(existsSync(PYTHON), `no ${PYTHON}: make test-interop installs the official Python SDK there`);
    await withFixtureOverHttp(async (url) => {
      const r = await run(PYTHON, [PY_PROXY_CLIENT, mode, MCPWEFT, 'proxy', url]);
      const report = describeRun(`py_proxy_client.py ${mode} mcpweft proxy ${url}`, r);
      assert.equal(r.code, 0, report);
      assert.match(r.stdout, new RegExp(`all \\d+ checks passed \\(${version}\\)`), report);
    });
  });
}
