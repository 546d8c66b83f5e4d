// Compiled by `tsc -b type-test` (make test-node): a TypeScript consumer of the ES module
// entry point that uses the whole public API. It is type-checked only, never run.
import { z } from 'zod';
import {
  CancelledError,
  Client,
  ErrorCode,
  Host,
  McpServer,
  McpError,
  McpweftError,
  ResourceTemplate,
  Server,
  middleware,
  type AppView,
  type AppVisibility,
  type AuthInfo,
  type CloseInfo,
  type CallToolResult,
  type ClusterOptions,
  type Context,
  type ListToolsResult,
  type HostEvent,
  type HostTool,
  type HttpServerOptions,
  type ServerState,
  type ServerAuth,
  type LoadedSkill,
  type Middleware,
  type MiddlewareMessage,
  type Next,
  type SkillEntry,
  type StoredTokens,
  type Subscription,
  type Task,
  type TokenStore,
  type Tool,
} from 'mcpweft';
import mcpweft from 'mcpweft';
import { createServer } from 'node:http';

const server = new Server({ name: 'typed', version: '1.0.0' }, { instructions: 'Be nice.', pageSize: 10 });

server.registerTool(
  'add',
  { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
  async ({ a, b }, ctx) => {
    const sum: number = a + b;
    ctx.progress(1, 1, 'done');
    ctx.log('info', { sum });
    return { sum };
  },
);
server.registerTool('greet', { inputSchema: z.object({ name: z.string().optional() }) }, ({ name }) => `Hello ${name ?? 'you'}`);
server.registerTool(
  'json',
  { inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, annotations: { readOnlyHint: true } },
  (args, ctx: Context) => {
    const signal: AbortSignal = ctx.signal;
    const id = ctx.requestId;
    const session: string | undefined = ctx.sessionId;
    return [String(args.q), signal.aborted, id ?? null, session ?? null];
  },
);
const fails = server.registerTool('fail', {}, () => {
  throw new McpError(ErrorCode.InvalidParams, 'bad', { why: 1 });
});
fails.remove();
server.registerTool('fail', { replace: true }, () => 'replaced');
server.registerPrompt('p', { replace: true }, () => 'prompt');
server.registerResource('r', 'mem://r', { replace: true }, () => 'resource');
server.addSkill('---\nname: s\ndescription: S.\n---\n', {}, { replace: true });
server.registerTool('ask', {}, async (_args, ctx) => {
  const sampled = await ctx.sample('hello', { maxTokens: 5 });
  const form = await ctx.elicit('Your name?', z.object({ name: z.string() }));
  const url = await ctx.elicit({ mode: 'url', message: 'log in', url: 'https://example.com', elicitationId: 'e1' });
  const roots = await ctx.listRoots();
  ctx.notifyElicitationComplete('e1');
  return { model: sampled.model, action: form.action, url: url.action, roots: roots.roots.length };
});
server.registerTool('rounds', {}, async (_args, ctx) => {
  const previous = ctx.state as { asked?: number } | undefined;
  ctx.setState({ asked: (previous?.asked ?? 0) + 1 });
  const form = await ctx.ask('name', 'elicitation/create', {
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  });
  const sampled = await ctx.ask('hello', 'sampling/createMessage', { messages: [], maxTokens: 5 });
  const roots = await ctx.ask('roots', 'roots/list');
  return { action: form.action, model: sampled.model, roots: roots.roots.length };
});
server.registerResource('readme', 'mem://readme', { mimeType: 'text/markdown' }, (uri) => `# ${uri.href}`);
server.registerResource(
  'user',
  new ResourceTemplate('mem://users/{id}', { complete: { id: (value) => [`${value}1`] } }),
  { description: 'A user.' },
  (uri, { id }) => ({ id, uri: uri.href }),
);
server.registerResource(
  'listed',
  new ResourceTemplate('mem://listed/{id}', { list: async (ctx) => ({ resources: [{ uri: `mem://listed/${ctx.requestId}`, name: 'one' }] }) }),
  { mimeType: 'text/plain' },
  (uri) => uri.href,
);
server.registerResource('unlisted', new ResourceTemplate('mem://unlisted/{id}', { list: undefined }), {}, (uri) => uri.href);
const ported: McpServer = new McpServer({ name: 'ported', version: '1.0.0' });
ported.registerTool('t', {}, () => 'ok');
server.registerPrompt(
  'greet',
  { description: 'Greets.', argsSchema: { who: z.string() }, complete: { who: () => ['Ada'] } },
  ({ who }) => `Hello ${who}`,
);
server.setCompletionHandler((params) => [params.argument.value]);
server.onRootsChanged(async (ctx) => {
  await ctx.listRoots();
});
const timed: Middleware = async (message: MiddlewareMessage, next: Next) => {
  const started = Date.now();
  const outcome = await next();
  console.error(message.direction, message.role, message.method, message.target ?? '', Date.now() - started);
  return outcome;
};
const server2: Server = server
  .use(timed)
  .use((message, next) => {
    if (message.method === 'tools/call' && message.params !== null) message.params.arguments.text = 'changed';
    if (message.target === 'denied') throw new McpError(-32050, 'denied', { why: message.identity });
    return message.isRequest && message.id === 0 ? { content: [] } : next(message);
  })
  .use(middleware.timing())
  .use(middleware.rateLimit({ perSecond: 10, burst: 20, per: 'session' }))
  .use(middleware.cache({ defaultTtlMs: 1000, maxTtlMs: 60000, maxEntries: 100, methods: ['tools/list'] }));
console.error(server2 === server, middleware.cache().spec);
const traced: Middleware = middleware.openTelemetry();
server.use(traced).use(middleware.openTelemetry({ tracerProvider: { getTracer: (name: string) => name } }));
server.appView('ui://adder/view', '<p></p>', {
  name: 'Adder',
  csp: { connectDomains: ['https://api.example.com'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
});
const onlyApp: AppVisibility[] = ['app'];
server.registerTool('refresh', { app: 'ui://adder/view', visibility: onlyApp }, () => 'refreshed');
server.log('warning', 'careful');
server.notifyResourceUpdated('mem://readme');

const http = await server.serveHttp({ port: 0, path: '/mcp' });
const url: string = http.url;
const cluster: ClusterOptions = { url: 'redis://127.0.0.1:6379/0', prefix: 'app', livenessTtlMs: 5000 };
const clustered: HttpServerOptions = { port: 0, cluster };
createServer(server.httpHandler({ path: '/mcp' })).listen(0, '127.0.0.1');

const client = await Client.connectHttp(url, { headers: { 'x-test': '1' } }, {
  name: 'host',
  version: '1.0.0',
  sampling: (params) => ({ role: 'assistant', content: { type: 'text', text: String(params.maxTokens) }, model: 'm' }),
  elicitation: { handler: async () => ({ action: 'accept', content: { name: 'Ada' } }), url: true },
  roots: [{ uri: 'file:///tmp' }],
  middleware: [timed, middleware.cache({ defaultTtlMs: 60000 }), middleware.openTelemetry()],
  apps: true,
});
const view: AppView = await client.readAppView('ui://adder/view');
console.error(view.uri, view.html.length, view.meta.csp?.connectDomains, view.meta.prefersBorder);
client.on('log', (params) => console.error(params.level, params.data));
client.on('toolsChanged', () => undefined);
client.on('notifications/custom', (params) => console.error(params));
const tools: Tool[] = await client.listAll('tools');
const page: ListToolsResult = await client.listTools();
for await (const p of client.pages('prompts')) console.error(p.prompts.length);
const controller = new AbortController();
const result: CallToolResult = await client.callTool('add', { a: 1, b: 2 }, {
  signal: controller.signal,
  timeout: 1000,
  onProgress: (p) => console.error(p.progress, p.total),
});
await client.callTool({ name: 'greet', arguments: {} });
await client.readResource('mem://readme');
await client.getPrompt('greet', { who: 'Ada' });
await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } });
await client.setLoggingLevel('debug');
await client.subscribeResource('mem://readme', { timeout: 1000 });
await client.unsubscribeResource(new URL('mem://readme'));
const firstTools: ListToolsResult = await client.list('tools', undefined, { timeout: 1000 });
console.error(firstTools.tools.length);
client.notifyRootsChanged();
try {
  await client.ping();
} catch (error) {
  if (error instanceof McpError) console.error(error.code, error.data);
  else if (error instanceof CancelledError || error instanceof McpweftError) console.error(error.kind, error.causes.join('; '));
}
await client.close();
const guarded = await server.serveHttp({
  port: 0,
  auth: { resource: 'http://127.0.0.1:8080/mcp', authorizationServers: ['https://auth.example.com'], toolScopes: { add: ['mcp:write'] } },
  verifier: async (token): Promise<AuthInfo | null> => (token === 'secret' ? { subject: 'alice', scopes: ['mcp:read'] } : null),
});
server.registerTool('whoami', {}, (_args, ctx) => ctx.auth?.subject ?? 'nobody');
const jwt: ServerAuth = { resource: 'https://mcp.example.com/mcp', jwt: { issuer: 'https://auth.example.com', jwksUrl: 'https://auth.example.com/jwks' } };
createServer(server.httpHandler({ auth: jwt })).listen(0, '127.0.0.1');
const store: TokenStore = { load: () => null, save: async (resource: string, tokens: StoredTokens) => void console.error(resource, tokens.accessToken) };
const login = await Client.connectHttp(guarded.url, { auth: { redirectUri: 'http://127.0.0.1:8765/callback', scopes: ['mcp:read'] } }, {
  authorizer: async (authorizationUrl: string) => authorizationUrl,
  tokenStore: store,
});
await login.close();
await guarded.close();
const stdio = await Client.connectStdio({ command: 'node', args: ['server.mjs'], env: { X: '1' }, cwd: '/tmp' });
stdio.onclose = (info: CloseInfo) => console.error(info.reason, info.exitCode ?? info.signal, info.stderr);
stdio.onerror = (error) => console.error(error.kind, error.message);
stdio.on('close', (info) => console.error(info.message));
const ended: CloseInfo | undefined = stdio.closeInfo;
console.error(ended?.reason === 'closed' || ended?.reason === 'disconnected');
await stdio.close();
const local = await Client.connectInProcess(server);
await local.close();
const next = await Client.connectInProcess(server, {
  protocolVersion: '2026-07-28',
  elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
});
const revision: string = next.protocolVersion;
const subscription: Subscription = await next.listen({ toolsListChanged: true, resourceSubscriptions: [new URL('mem://readme')] });
const agreed: boolean = subscription.acknowledged.toolsListChanged ?? false;
for await (const notification of subscription) {
  if (notification.method === 'notifications/tools/list_changed') break;
}
await subscription.close();
const skills: SkillEntry[] = await next.listSkills();
const loaded: LoadedSkill = await next.loadSkill(skills[0]);
const bytes: Buffer = await next.readSkillFile(loaded.entry, loaded.entry.resources[0].uri);
const created = await next.callTool('add', { a: 1, b: 2 }, { task: { ttl: 60000 }, meta: { trace: 't1' } });
const state: Task = await next.getTask('t1', { timeout: 1000 });
const finished: CallToolResult = await next.getTaskResult(state.taskId);
const cancelled: Task = await next.cancelTask(state.taskId);
console.error(agreed, loaded.body, bytes.length, created, finished.isError, cancelled.status);
await next.close();
await http.close();
await http.closed;
await server.close();
console.error(tools.length, page.tools.length, result.isError, mcpweft.version, server.capabilities);
const host = await Host.connect(
  { mcpServers: { calc: { command: 'calculator_server', timeoutMs: 10000 }, web: { type: 'http', url: 'http://127.0.0.1:8080/mcp' } } },
  {
    name: 'typed-host',
    separator: '.',
    apps: true,
    sampling: (params, ctx) => ({ role: 'assistant', content: { type: 'text', text: ctx.server }, model: 'm', stopReason: String(params.maxTokens) }),
    roots: (ctx) => [{ uri: `file:///${ctx.server}` }],
  },
);
const hostTools: HostTool[] = host.tools();
const modelTools: string[] = hostTools.filter((t) => t.visibleToModel).map((t) => t.name);
const hostView: AppView = await host.readAppView('calc.add');
console.error(modelTools, hostView.html);
const calcState: ServerState = host.state('calc');
const sum: CallToolResult = await host.callTool('calc.add', { a: 1, b: 2 }, { timeoutMs: 1000, maxTotalTimeoutMs: 5000, onprogress: (p) => p.progress });
host.on('state', (event) => console.error(event.server, event.state));
host.on('log', (message, from) => console.error(from, message.data));
for await (const event of host.events()) {
  const seen: HostEvent = event;
  if (seen.type === 'stateChanged' && seen.state === 'failed') console.error(seen.server, seen.stderr);
  break;
}
const job: Task & { server: string } = await host.callToolAsTask('calc.add', { a: 1 }, { ttl: 60000 });
const jobState: Task = await host.getTask(job.server, job.taskId, { timeoutMs: 1000 });
const jobResult: CallToolResult = await host.getTaskResult(job.server, job.taskId);
await host.cancelTask(job.server, job.taskId);
console.error(jobState.status, jobResult.isError);
host.restart('calc');
console.error(hostTools[0]?.server, calcState.state, sum.isError, host.servers()[0]?.name, host.collisions()[0]?.kind);
await host.close();
const fromFile = await Host.connect('servers.json', {
  authorizer: async (url) => `${url}&approved`,
  redirectUri: 'http://127.0.0.1:8765/callback',
  tokenStore: { load: async () => undefined, save: () => undefined },
});
await fromFile.close();
