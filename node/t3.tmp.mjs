import { createServer } from 'node:http';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '/work/wt-node/node/index.mjs';
const t0 = Date.now();
const log = (m) => console.log(Date.now() - t0, m);
const server = new Server({ name: 'x', version: '1' });
server.registerTool('add', {}, () => 1);
server.registerTool('slow', {}, async (_args, ctx) => {
    ctx.progress(1, 2);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'cancelled';
});
async function checks(sdk) {
  await sdk.callTool({ name: 'add', arguments: {} });
  const controller = new AbortController();
  const slow = sdk.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal, onprogress: () => controller.abort() });
  await slow.catch(() => {});
}
const mode = process.argv[2];
if (mode === 'own') {
const http = await server.serveHttp({ port: 0 });
const sdk = new SdkClient({ name: 'sdk-client', version: '1.0.0' });
await sdk.connect(new StreamableHTTPClientTransport(new URL(http.url)));
await checks(sdk);
await sdk.close();
await http.close();
log('http closed');
} else {
const host = createServer(server.httpHandler());
await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
const mounted = new SdkClient({ name: 'sdk-client', version: '1.0.0' });
await mounted.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${host.address().port}/mcp`)));
await checks(mounted);
await mounted.close();
host.closeAllConnections();
await new Promise((resolve) => host.close(resolve));
log('host closed');
}
setTimeout(() => { log('handles: ' + process._getActiveHandles().map(h => h.constructor.name).join(',')); log('requests: ' + process._getActiveRequests().length); }, 500).unref();
process.on('exit', () => log('exit'));
