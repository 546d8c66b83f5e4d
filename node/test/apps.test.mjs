// MCP Apps: a server serves a `ui://` view and binds tools to it; a client or host that declares
// Apps sees and reads the view and knows which tools only the view may call; a client without
// Apps gets neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, Host, Server } from '../index.mjs';
import { connect } from './helpers.mjs';

const VIEW = 'ui://adder/view';
const HTML = '<!doctype html><p id=sum></p>';

function adder() {
  const server = new Server({ name: 'adder', version: '1' });
  server.appView(VIEW, HTML, { name: 'Adder', csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true });
  const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } };
  server.registerTool('add', { inputSchema: schema, app: VIEW }, ({ a, b }) => String(a + b));
  server.registerTool('refresh', { app: VIEW, visibility: ['app'] }, () => 'refreshed');
  return server;
}

test('a client with apps reads the view, and one without sees neither it nor the app-only tool', async () => {
  const server = adder();
  const client = await connect(server, { apps: true });
  try {
    assert.ok('io.modelcontextprotocol/ui' in client.serverCapabilities.extensions);
    const tools = Object.fromEntries((await client.listAll('tools')).map((t) => [t.name, t]));
    assert.deepEqual(tools.refresh._meta.ui, { resourceUri: VIEW, visibility: ['app'] });
    assert.equal(tools.add._meta.ui.resourceUri, VIEW);
    const view = await client.readAppView(VIEW);
    assert.equal(view.uri, VIEW);
    assert.equal(view.html, HTML);
    assert.deepEqual(view.meta, { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true });
  } finally {
    await client.close();
  }
  const plain = await connect(server);
  try {
    assert.deepEqual((await plain.listAll('tools')).map((t) => t.name), ['add']);
    assert.deepEqual(await plain.listAll('resources'), []);
    assert.equal((await plain.callTool('add', { a: 2, b: 3 })).content[0].text, '5');
  } finally {
    await plain.close();
  }
});

test('a host with apps knows which tools have views and reads them', async () => {
  const http = await adder().serveHttp({ port: 0 });
  const host = await Host.connect({ calc: { type: 'http', url: http.url } }, { apps: true });
  try {
    const tools = Object.fromEntries(host.tools().map((t) => [t.name, t]));
    assert.equal(tools.calc__add.visibleToModel, true);
    assert.equal(tools.calc__refresh.visibleToModel, false);
    const view = await host.readAppView('calc__add');
    assert.deepEqual([view.uri, view.html], [VIEW, HTML]);
    await assert.rejects(host.readAppView('calc__nothing'), ConfigError);
  } finally {
    await host.close();
    await http.close();
  }
});

test('a view is a ui:// URI, served once', () => {
  const server = new Server({ name: 'bad', version: '1' });
  assert.throws(() => server.appView('https://example.com', HTML), (error) => error instanceof ConfigError && /ui:\/\//.test(error.message));
  server.appView(VIEW, HTML);
  assert.throws(() => server.appView(VIEW, HTML), ConfigError);
});
