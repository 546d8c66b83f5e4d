// Serves the official MCP TypeScript SDK's client from an installed mcpweft npm package.
//
//   node release/smoke.mjs PROJECT
//
// PROJECT is a folder whose node_modules holds mcpweft (with its platform package), zod and
// @modelcontextprotocol/sdk. The calculator example of node/examples is copied into PROJECT so
// that it resolves mcpweft there, started over stdio by the official client, which lists the
// tools and calls `add`; then the same package is loaded from CommonJS. Prints one summary line;
// any failure is an exception and a non-zero exit. The release workflow runs it on every
// operating system a native package is built for.
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const project = resolve(process.argv[2] ?? '.');
const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
copyFileSync(join(repo, 'node', 'examples', 'calculator.mjs'), join(project, 'calculator.mjs'));

const require = createRequire(join(project, 'package.json'));
const sdk = (path) => import(pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${path}`)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const client = new Client({ name: 'smoke', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(project, 'calculator.mjs')], cwd: project }));
const { tools } = await client.listTools();
assert.deepEqual(tools.map((tool) => tool.name), ['add', 'divide', 'count']);
const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
assert.deepEqual(result.structuredContent, { sum: 5 });
await client.close();

writeFileSync(join(project, 'smoke.cjs'), "const { Server } = require('mcpweft'); console.log(typeof Server);\n");
const cjs = spawnSync(process.execPath, [join(project, 'smoke.cjs')], { cwd: project, encoding: 'utf8' });
assert.equal(cjs.status, 0, cjs.stderr);
assert.equal(cjs.stdout.trim(), 'function');
console.log(`smoke (node): ${process.platform}-${process.arch}, tools ${JSON.stringify(tools.map((t) => t.name))}, add(2, 3) = 5, ESM and CommonJS`);
