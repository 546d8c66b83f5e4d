// MCP Apps end to end, in a real browser:
//
//   view.js (the official Apps SDK's App, in a sandboxed iframe of headless Chromium)
//     -- postMessage -->  host.js (the SDK's AppBridge, on a page served from 127.0.0.1)
//     -- puppeteer's exposeFunction -->  this file (the official TypeScript SDK's Client,
//        declaring the Apps extension)
//     -- Streamable HTTP -->  the Rust example apps_server, which serves the view and `add`.
//
// The example comes from `cargo build -p mcpweft --examples` (make build-examples) and is
// looked up in $CARGO_TARGET_DIR (relative paths are taken from the repository root) or else
// <repo>/target. Chromium is the system's (`chromium` on the PATH, or $CHROMIUM); puppeteer-core
// never downloads one. The screenshot goes to tests/apps/artifacts/app.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as esbuild from 'esbuild';
import puppeteer from 'puppeteer-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '..', '..');
const TARGET_DIR = process.env.CARGO_TARGET_DIR
  ? resolve(REPO_ROOT, process.env.CARGO_TARGET_DIR)
  : join(REPO_ROOT, 'target');
const APPS_SERVER = join(TARGET_DIR, 'debug', 'examples', 'apps_server');
const SCREENSHOT = join(HERE, 'artifacts', 'app.png');

const VIEW_URI = 'ui://calculator/view';
const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';

// Every wait is bounded by this; the tests by a little more.
const WAIT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;

/** Resolves as `promise` does, or rejects once `ms` have passed, naming what was awaited. */
function within(promise, what, ms = WAIT_MS) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Bundles one of this folder's scripts, with its imports, into one browser script. */
async function bundle(entry) {
  const built = await esbuild.build({
    entryPoints: [join(HERE, entry)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  });
  const code = built.outputFiles[0].text;
  // esbuild escapes `</script` in what it writes, so the bundle can be inlined.
  assert.ok(!/<\/script/i.test(code), `${entry}'s bundle would end its <script> element`);
  return code;
}

/** The view: view.html with view.js bundled into it, one self-contained document. */
async function viewDocument() {
  const html = readFileSync(join(HERE, 'view.html'), 'utf8');
  const tag = '<script src="view.js"></script>';
  assert.ok(html.includes(tag), `view.html loads view.js with ${tag}`);
  const code = await bundle('view.js');
  return html.replace(tag, () => `<script>${code}</script>`);
}

/** The path of the system's Chromium: $CHROMIUM, or `chromium` on the PATH. */
function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'chromium');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  throw new Error('chromium is not on the PATH: run tests/install-packages.sh chromium (make test-apps does)');
}

/** Serves the host page and its bundled script on 127.0.0.1; resolves with the server. */
async function serveHost() {
  const files = {
    '/': { type: 'text/html; charset=utf-8', body: readFileSync(join(HERE, 'host.html'), 'utf8') },
    '/host.js': { type: 'text/javascript; charset=utf-8', body: await bundle('host.js') },
  };
  const server = createServer((request, response) => {
    const file = files[request.url.split('?')[0]];
    response.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' });
    response.end(file?.body ?? 'not found');
  });
  await within(new Promise((ok) => server.listen(0, '127.0.0.1', ok)), 'the host page server');
  return server;
}

/** Starts apps_server on a free port with the view in `viewFile`; resolves with it and its URL. */
async function startAppsServer(viewFile) {
  assert.ok(
    existsSync(APPS_SERVER),
    `Rust example not found: ${APPS_SERVER}\nBuild it with \`make build-examples\` (or \`cargo build -p mcpweft --examples\`).`,
  );
  const child = spawn(APPS_SERVER, ['--view', viewFile, '--http', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await within(
    new Promise((ok, fail) => {
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        stderr += chunk;
        const found = /serving MCP at (\S+)/.exec(stderr);
        if (found) ok(found[1]);
      });
      child.on('error', fail);
      child.on('exit', (code, signal) => fail(new Error(`apps_server exited (${code ?? signal}):\n${stderr}`)));
    }),
    'apps_server saying where it serves',
  ).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return { child, url };
}

/** Reads the view a tool is bound to, as a host does: `resources/read` of its `_meta.ui.resourceUri`. */
async function readView(client, tool) {
  const uri = tool._meta?.ui?.resourceUri;
  assert.equal(uri, VIEW_URI, `${tool.name} is bound to the calculator's view`);
  const read = await within(client.readResource({ uri }), `resources/read ${uri}`);
  const contents = read.contents.find((c) => c.uri === uri);
  assert.ok(contents, `resources/read ${uri} returns its contents`);
  assert.equal(contents.mimeType, APP_MIME_TYPE, 'the view is an MCP App');
  assert.equal(typeof contents.text, 'string');
  return contents.text;
}

const temp = mkdtempSync(join(tmpdir(), 'mcpweft-apps-'));
let viewHtml;
let appsServer;
let client;
let hostServer;
let browser;

// The example is killed even when the test runner itself ends abruptly.
process.on('exit', () => appsServer?.child.kill('SIGKILL'));

before(async () => {
  viewHtml = await viewDocument();
  const viewFile = join(temp, 'view.html');
  writeFileSync(viewFile, viewHtml);
  appsServer = await startAppsServer(viewFile);
  client = new Client(
    { name: 'mcpweft-apps-test', version: '1.0.0' },
    { capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } } },
  );
  await within(client.connect(new StreamableHTTPClientTransport(new URL(appsServer.url))), 'initialize');
});

after(async () => {
  await browser?.close().catch(() => {});
  hostServer?.close();
  await client?.close().catch(() => {});
  appsServer?.child.kill('SIGKILL');
  rmSync(temp, { recursive: true, force: true });
});

test('the server binds add to its view and still answers a client in text', { timeout: TEST_TIMEOUT_MS }, async () => {
  assert.ok(client.getServerCapabilities()?.extensions?.[APPS_EXTENSION], 'the server declares MCP Apps');
  const { tools } = await within(client.listTools(), 'tools/list');
  const add = tools.find((t) => t.name === 'add');
  assert.ok(add, `add is listed (tools: ${tools.map((t) => t.name).join(', ')})`);
  assert.equal(add._meta.ui.resourceUri, VIEW_URI);
  assert.deepEqual(add._meta.ui.visibility, ['model', 'app']);
  assert.equal(add._meta['ui/resourceUri'], VIEW_URI, 'the flat key older hosts read');
  assert.equal(await readView(client, add), viewHtml, 'the view is the HTML the server was given');

  const sum = await within(client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), 'tools/call add');
  assert.deepEqual(sum.content, [{ type: 'text', text: '2 + 3 = 5' }], 'text for clients that render no view');
  assert.deepEqual(sum.structuredContent, { sum: 5 });
});

test('Chromium renders the view through the host, whose bridge forwards its add', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const { tools } = await within(client.listTools(), 'tools/list');
  const html = await readView(client, tools.find((tool) => tool.name === 'add'));
  hostServer = await serveHost();
  const hostUrl = `http://127.0.0.1:${hostServer.address().port}/`;

  browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Chromium's own sandbox refuses to start as root; a container's /dev/shm may be too small.
    args: ['--disable-dev-shm-usage', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    timeout: WAIT_MS,
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.setViewport({ width: 640, height: 420 });
  const browserLog = [];
  page.on('console', (message) => {
    // The Apps SDK's transports log every message at debug level.
    if (message.type() !== 'debug') browserLog.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => browserLog.push(`page error: ${error.message}`));

  // What the host saw from the view, and the calls its MCP client made for it.
  const events = [];
  const calls = [];
  await page.exposeFunction('hostEvent', (kind, detail) => events.push({ kind, detail }));
  await page.exposeFunction('hostCallTool', async (params) => {
    calls.push(params);
    return within(client.callTool(params), `tools/call ${params.name}`);
  });

  // The screenshot is taken whatever happens, and shows what the host and the view got to.
  try {
    await page.goto(hostUrl, { waitUntil: 'load' });
    await within(page.evaluate((view) => window.renderApp(view), html), 'renderApp');
    const frame = await (await page.waitForSelector('iframe[sandbox="allow-scripts"]')).contentFrame();
    try {
      // The button is enabled once the host answered the view's ui/initialize.
      await frame.waitForSelector('#add:not([disabled])');
      assert.deepEqual(calls, [], 'nothing is called before the click');
      await frame.click('#add');
      await frame.waitForFunction(
        () =>
          document.getElementById('result').textContent !== '' ||
          document.getElementById('status').textContent.startsWith('Error'),
      );
    } catch (error) {
      error.message += `\nbrowser log:\n${browserLog.join('\n')}`;
      throw error;
    }

    const shown = await frame.$eval('#result', (e) => e.textContent);
    const status = await frame.$eval('#status', (e) => e.textContent);
    assert.equal(shown, '5', `the view shows the sum (status: ${status}; browser log: ${browserLog.join(' | ')})`);
    assert.equal(status, 'The host mcpweft-test-host called add.');
    assert.deepEqual(
      events.map((e) => e.kind),
      ['initialized', 'tools/call'],
      'the view initialized, then called a tool through the bridge',
    );
    assert.equal(events[0].detail.name, 'calculator-view');
    const { name, arguments: args } = events[1].detail;
    assert.deepEqual({ name, arguments: args }, { name: 'add', arguments: { a: 2, b: 3 } }, 'the view asked for add(2, 3)');
    assert.deepEqual(calls, [{ name: 'add', arguments: { a: 2, b: 3 } }], "the host's client called add once");
  } finally {
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await within(page.screenshot({ path: SCREENSHOT }), 'the screenshot').then(
      () => t.diagnostic(`screenshot: ${SCREENSHOT}`),
      (error) => t.diagnostic(`no screenshot: ${error.message}`),
    );
  }
});
