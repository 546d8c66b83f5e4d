// The client's calls work the same against a server of either revision: ping, resource
// subscriptions, the log level and list changes (2026-07-28 has no ping, resources/subscribe or
// logging/setLevel: the bridge sends server/discover, opens a subscriptions/listen stream and puts
// the level in _meta); and the bridge alone reads the call options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidInputError, Server } from '../index.mjs';
import { connect, waitFor } from './helpers.mjs';

function server() {
  const server = new Server({ name: 'calls', version: '1' });
  server.registerResource('note', 'mem://note', {}, () => 'hi');
  server.registerTool('chatty', {}, (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error']) ctx.log(level, level);
    return 'logged';
  });
  server.registerTool('spare', {}, () => '');
  return server;
}

for (const version of ['2026-07-28', '2025-11-25']) {
  test(`a ${version} client pings, subscribes, sets the log level and hears list changes`, async () => {
    const mcp = server();
    const client = await connect(mcp, { protocolVersion: version });
    assert.equal(client.protocolVersion, version);
    const updated = [];
    const levels = [];
    const changed = [];
    client.on('resourceUpdated', (params) => updated.push(params.uri));
    client.on('log', (params) => levels.push(params.level));
    client.on('toolsChanged', () => changed.push('tools'));

    assert.deepEqual(await client.ping({ timeout: 5000 }), {});
    assert.deepEqual(await client.subscribeResource('mem://note'), {});
    mcp.notifyResourceUpdated('mem://note');
    await waitFor(() => updated.length === 1);
    assert.deepEqual(updated, ['mem://note']);
    await client.unsubscribeResource('mem://note');

    await client.setLoggingLevel('warning');
    const result = await client.callTool('chatty', {});
    assert.equal(result.content[0].text, 'logged');
    // The logs come in order: any below the level would come before the error.
    await waitFor(() => levels.includes('error'));
    assert.deepEqual(levels, ['warning', 'error']);
    await assert.rejects(client.setLoggingLevel('loud'), InvalidInputError);

    mcp.notifyResourceUpdated('mem://note');
    mcp.removeTool('spare');
    await waitFor(() => changed.length === 1);
    // The update sent after unsubscribing, before the list change, was never heard.
    assert.deepEqual(updated, ['mem://note']);
    await client.close();
  });
}

test('bad call options are refused by the bridge, naming the option', async () => {
  const client = await connect(server());
  const refused = async (call, name) =>
    assert.rejects(call, (error) => error instanceof InvalidInputError && error.message.includes(name));
  await refused(client.callTool('spare', {}, { timeout: -1 }), 'timeoutMs');
  await refused(client.callTool('spare', {}, { timeout: Infinity }), 'timeoutMs');
  await refused(client.callTool('spare', {}, { meta: [1] }), 'meta');
  await refused(client.callTool('spare', {}, { task: { ttl: -5 } }), 'task');
  await refused(client.readResource('mem://note', { timeout: 'soon' }), 'timeoutMs');
  await refused(client.ping({ task: { ttl: 1 } }), 'ping');
  const result = await client.callTool('spare', {}, { timeout: 5000, meta: { trace: 't1' } });
  assert.notEqual(result.isError, true);
  assert.equal((await client.listTools({}, { timeout: 5000 })).tools.length, 2);
  await client.close();
});
