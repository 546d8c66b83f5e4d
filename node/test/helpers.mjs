// Helpers shared by the tests.
import { spawn } from 'node:child_process';
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
