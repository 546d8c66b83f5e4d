// A host: one client for many servers of different kinds.
//
//   node host.mjs [servers.json]
//
// With a Claude Desktop-style configuration file (`{"mcpServers": {...}}`) it connects to its
// servers. Without one it makes its own: the Rust calculator example over stdio (cargo build -p
// mcpweft --examples), the Python calculator example over Streamable HTTP on 127.0.0.1 (started
// here with the checkout's .venv, which python/scripts/build.sh makes), the official reference
// server @modelcontextprotocol/server-everything over stdio (installed in tests/host by npm ci,
// or else run through npx), and a command that fails to start. It prints each server's state,
// the one list of tools, and calls a tool of each ready server.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Host } from 'mcpweft';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const target = resolve(repo, process.env.CARGO_TARGET_DIR ?? 'target');

/** A free port of 127.0.0.1. */
function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Resolves once something accepts connections on `port`, within ten seconds. */
async function listening(port) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const open = await new Promise((done) => {
      const socket = createConnection(port, '127.0.0.1', () => {
        socket.end();
        done(true);
      }).once('error', () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** The reference server: the copy in tests/host when installed, else npx. */
function referenceServer() {
  const installed = join(repo, 'tests', 'host', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  if (existsSync(installed)) return { command: process.execPath, args: [installed, 'stdio'] };
  return { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'] };
}

/** A sum as a number, anything else as the text of its first content block. */
function shown(result) {
  return result.structuredContent?.sum ?? result.content[0]?.text;
}

let pythonServer;
let config = process.argv[2];
if (config === undefined) {
  const port = await freePort();
  const python = join(repo, '.venv', 'bin', 'python');
  pythonServer = spawn(python, [join(repo, 'python', 'examples', 'calculator.py'), '--http', String(port)], { stdio: 'ignore' });
  await listening(port);
  config = {
    calc: { command: join(target, 'debug', 'examples', 'calculator_server') },
    pycalc: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
    everything: referenceServer(),
    broken: { command: process.execPath, args: ['-e', "console.error('no API key given'); process.exit(2)"] },
  };
}

const host = await Host.connect(config);
host.on('log', (message, server) => console.error(`  [${server}] ${JSON.stringify(message.data)}`));
try {
  for (const { name, state, stderr } of host.servers()) {
    console.log(`${name}: ${state}${state === 'failed' ? ` (${stderr?.trim()})` : ''}`);
  }
  console.log(`tools: ${host.tools().map((tool) => tool.name).join(', ')}`);
  for (const name of ['calc__add', 'pycalc__add', 'everything__get-sum']) {
    if (host.tools().some((tool) => tool.name === name)) {
      console.log(`${name}(2, 40) = ${shown(await host.callTool(name, { a: 2, b: 40 }))}`);
    }
  }
} finally {
  await host.close();
  pythonServer?.kill();
}
