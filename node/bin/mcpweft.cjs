#!/usr/bin/env node
'use strict';
// `mcpweft` (`npx mcpweft …`): the command of the native addon, which lists, calls and reads
// what an MCP server offers and proxies stdio to Streamable HTTP. It owns the process: this
// file touches neither process.stdin nor process.stdout (the proxy's protocol goes through them
// from the addon), runs the command on this thread to its end, and exits with its code.

const native = require('../lib/native.cjs');

process.exitCode = native.cli(['mcpweft', ...process.argv.slice(2)]);
