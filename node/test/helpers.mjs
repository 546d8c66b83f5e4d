// Helpers shared by the tests.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../index.mjs';

/** Connects an in-process client to `server`. */
export function connect(server, options = {}) {
  return Client.connectInProcess(server, { name: 'tester', version: '1.0.0', ...options });
}

/** Waits until `condition()` holds, polling every 10 ms, for at most `ms`. */
export async function waitFor(condition, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`the condition never held: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves with the next `event` that `emitter` emits. */
export function next(emitter, event) {
  return new Promise((resolve) => emitter.once(event, resolve));
}

/**
 * Runs `node args...` to completion; resolves with its exit code, output and duration, or
 * with `code: 'killed'` when it outlives `ms`.
 */
export function runNode(args, { ms = 15000, env = {} } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal === 'SIGKILL' ? 'killed' : code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** The servers of the host tests: the Rust and Python calculator examples and the reference server. */
export const hostServers = {
  rust: join(resolve(repo, process.env.CARGO_TARGET_DIR ?? 'target'), 'debug', 'examples', 'calculator_server'),
  python: join(repo, '.venv', 'bin', 'python'),
  pythonCalculator: join(repo, 'python', 'examples', 'calculator.py'),
  everything: join(repo, 'tests', 'host', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
};

/** Fails with what to run when a server of the host tests is missing. */
export function requireServers() {
  const missing = [
    [hostServers.rust, 'make build-examples'],
    [hostServers.python, 'python/scripts/build.sh'],
    [hostServers.everything, 'make tests/host/node_modules/.package-lock.json'],
  ].filter(([path]) => !existsSync(path));
  if (missing.length > 0) throw new Error(`missing ${missing.map(([path, fix]) => `${path} (${fix})`).join(', ')}`);
}

/** A free port of 127.0.0.1. */
export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/**
 * Starts the Python calculator example serving Streamable HTTP on 127.0.0.1 and resolves with
 * its URL and the process once it accepts connections (within 30 seconds).
 */
export async function servePythonCalculator() {
  const port = await freePort();
  const child = spawn(hostServers.python, [hostServers.pythonCalculator, '--http', String(port)], { stdio: 'ignore' });
  const deadline = Date.now() + 30000;
  for (;;) {
    const open = await new Promise((done) => {
      const socket = createConnection(port, '127.0.0.1', () => {
        socket.end();
        done(true);
      }).once('error', () => done(false));
    });
    if (open) return { url: `http://127.0.0.1:${port}/mcp`, child };
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      throw new Error('the Python calculator did not serve HTTP');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
