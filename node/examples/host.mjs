// A host that holds several MCP clients at once: it connects to every server given, lists
// all their tools under one namespace (`server.tool`), and calls one tool of each.
//
//   node host.mjs 'COMMAND ARGS...' ['COMMAND ARGS...' ...]
//
// Without arguments it runs the Rust calculator (cargo build -p mcpweft --examples) and the
// Python one (python/scripts/build.sh), each over stdio. Commands are split on spaces.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'mcpweft';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = resolve(repo, process.env.CARGO_TARGET_DIR ?? 'target');
const defaults = [
  join(target, 'debug', 'examples', 'calculator_server'),
  `${join(repo, '.venv', 'bin', 'python')} ${join(repo, 'python', 'examples', 'calculator.py')}`,
];
const commands = process.argv.length > 2 ? process.argv.slice(2) : defaults;
if (commands === defaults) {
  const missing = defaults.map((command) => command.split(' ')[0]).filter((program) => !existsSync(program));
  if (missing.length > 0) throw new Error(`missing ${missing.join(' and ')}: build them, or pass commands`);
}

// Connect to every server at once; each client is independent.
const clients = await Promise.all(
  commands.map((command) => {
    const [program, ...args] = command.split(' ');
    return Client.connectStdio({ command: program, args }, { name: 'mcpweft-host', version: '0.1.0' });
  }),
);
try {
  const servers = new Map(clients.map((client, i) => [`${client.serverInfo.name}${i + 1}`, client]));
  const tools = new Map();
  for (const [name, client] of servers) {
    for (const tool of await client.listAll('tools')) tools.set(`${name}.${tool.name}`, { client, tool });
  }
  console.log(`${tools.size} tools: ${[...tools.keys()].join(', ')}`);
  for (const [name, client] of servers) {
    const result = await client.callTool('add', { a: 2, b: 3 });
    console.log(`${name}.add(2, 3) = ${JSON.stringify(result.structuredContent ?? result.content)}`);
  }
} finally {
  await Promise.all(clients.map((client) => client.close()));
}
