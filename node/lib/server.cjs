'use strict';
// The server API: registrations in the style of the TypeScript SDK's McpServer, handlers with
// a context, and serving over stdio, Streamable HTTP on its own port, or inside an existing
// node:http or Express application. The core does every piece of protocol work.

const native = require('./native.cjs');
const { CancelledError, sync } = require('./errors.cjs');
const { settle, parse, trampoline } = require('./call.cjs');
const { zodSchema, jsonSchema } = require('./schema.cjs');
const { addMiddleware } = require('./middleware.cjs');

/** The reason a stdio session ends when its server is closed. */
const STOPPED = Symbol('stopped');

/** The native server of each server, for in-process clients. */
const natives = new WeakMap();

/** Drops the keys whose value is `undefined`. */
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

/** The context of one handler call. */
class Context {
  #native;
  #controller;

  constructor(nativeContext) {
    this.#native = nativeContext;
  }

  /** The JSON-RPC id of the request being handled. */
  get requestId() {
    return parse(this.#native.requestId());
  }

  /** The session's id over Streamable HTTP (its Mcp-Session-Id); other transports have none. */
  get sessionId() {
    return this.#native.sessionId() ?? undefined;
  }

  /**
   * Who the request came from on a protected HTTP server (`subject`, `clientId`, `issuer`,
   * `audience`, `scopes`, `expiresAt`, `claims`), as the token verifier saw them.
   */
  get auth() {
    return parse(this.#native.auth());
  }

  /** The request's `_meta`, if it had one. */
  get meta() {
    return parse(this.#native.meta());
  }

  /** The progress token the client asked for, if any. */
  get progressToken() {
    return parse(this.#native.progressToken());
  }

  /** The client's `clientInfo`. */
  get clientInfo() {
    return parse(this.#native.clientInfo());
  }

  /** The capabilities the client declared. */
  get clientCapabilities() {
    return JSON.parse(this.#native.clientCapabilities());
  }

  /** The protocol version negotiated for the session. */
  get protocolVersion() {
    return this.#native.protocolVersion() ?? undefined;
  }

  /** An AbortSignal that fires when the request is cancelled or its session ends. */
  get signal() {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const abort = () => {
        try {
          controller.abort(new CancelledError('the request was cancelled'));
        } catch {
          // A throwing abort listener is the listener's own failure.
        }
      };
      if (this.#native.isCancelled()) abort();
      else this.#native.onCancelled(abort);
    }
    return this.#controller.signal;
  }

  /** Reports progress when the client asked for it; `progress` must increase. */
  progress(progress, total, message) {
    sync(() => this.#native.reportProgress(progress, total ?? null, message ?? null));
  }

  /** Sends a log message at `level` (`debug`, `info`, `warning`, `error`, ...). */
  log(level, data, logger) {
    sync(() => this.#native.log(level, JSON.stringify(data ?? null), logger ?? null));
  }

  /**
   * Asks the client to sample from its model: the `sampling/createMessage` params, or a
   * prompt text and options (`maxTokens` defaults to 1000).
   */
  sample(params, options = {}) {
    if (typeof params === 'string') {
      const text = { role: 'user', content: { type: 'text', text: params } };
      params = { messages: [text], maxTokens: 1000, ...options };
    }
    return settle((done) => this.#native.sample(JSON.stringify(params), done), { map: JSON.parse });
  }

  /**
   * Asks the client to elicit input from its user: the `elicitation/create` params (form
   * mode with `requestedSchema`, or URL mode with `mode: 'url'`), or a message and a schema
   * (JSON Schema or zod).
   */
  elicit(params, requestedSchema) {
    if (typeof params === 'string') params = { message: params, requestedSchema };
    if (params.requestedSchema !== undefined) {
      params = { ...params, requestedSchema: jsonSchema(params.requestedSchema, 'input') };
    }
    return settle((done) => this.#native.elicit(JSON.stringify(params), done), { map: JSON.parse });
  }

  /** Asks the client for its roots; resolves to the `roots/list` result. */
  listRoots() {
    return settle((done) => this.#native.listRoots(done), { map: JSON.parse });
  }

  /**
   * Asks the client for input (`elicitation/create`, `sampling/createMessage` or `roots/list`)
   * and resolves to its raw answer. A 2026-07-28 client answers by `key` in a later round:
   * until it has, the promise rejects and the handler runs again from the start when the
   * client retries, so work before asking is repeated (keep what should not be with
   * `setState`). Older clients get the request at once and `key` is not used.
   */
  ask(key, method, params = {}) {
    return settle((done) => this.#native.ask(key, method, JSON.stringify(params), done), { map: JSON.parse });
  }

  /** What `setState` kept in an earlier round of this 2026-07-28 request, or `undefined`. */
  get state() {
    return parse(this.#native.state());
  }

  /** Keeps `state` (JSON) for the next round of this 2026-07-28 request; older requests have one round. */
  setState(state) {
    sync(() => this.#native.setState(JSON.stringify(state ?? null)));
  }

  /** Sends any request to the client. */
  request(method, params = {}) {
    return settle((done) => this.#native.request(method, JSON.stringify(params), done), { map: JSON.parse });
  }

  /** Sends a notification to the client, tied to this request. */
  notify(method, params = {}) {
    sync(() => this.#native.notify(method, JSON.stringify(params)));
  }

  /** Tells the client that the URL-mode elicitation `elicitationId` finished. */
  notifyElicitationComplete(elicitationId) {
    sync(() => this.#native.notifyElicitationComplete(elicitationId));
  }

  /** Ends this request's SSE stream over Streamable HTTP; the client resumes it. */
  closeSseStream() {
    sync(() => this.#native.closeSseStream());
  }
}

/**
 * A URI template for `registerResource`, as the TypeScript SDK's: `list(ctx)` lists the
 * resources it stands for in `resources/list` (returning `{ resources }` or an array; pass
 * `undefined` for none), and `complete` maps its variables to completion functions.
 */
class ResourceTemplate {
  constructor(uriTemplate, { list, complete } = {}) {
    if (list !== undefined && typeof list !== 'function') {
      throw new TypeError('ResourceTemplate: list must be a function (ctx) => { resources } or undefined');
    }
    this.uriTemplate = String(uriTemplate);
    this.list = list;
    this.complete = complete;
  }

  /** The list callback, under the TypeScript SDK's name. */
  get listCallback() {
    return this.list;
  }

  /** The completion function of `variable`, under the TypeScript SDK's name. */
  completeCallback(variable) {
    return this.complete?.[variable];
  }
}

function toUrl(uri) {
  try {
    return new URL(uri);
  } catch {
    return uri;
  }
}

/** Turns bytes into base64 `blob` contents, the one resource value JSON cannot carry. */
function resourceValue(value) {
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(resourceValue);
  if (value !== null && typeof value === 'object' && value.blob instanceof Uint8Array) {
    return { ...value, blob: Buffer.from(value.blob).toString('base64') };
  }
  return value;
}

/** The prompt arguments that a raw shape of zod schemas stands for. */
function promptArguments(argsSchema) {
  return Object.entries(argsSchema).map(([name, schema]) =>
    defined({ name, description: schema.description, required: !schema.safeParse(undefined).success }),
  );
}

/** A running Streamable HTTP server. */
class HttpServerHandle {
  #native;

  constructor(nativeServer, closed) {
    this.#native = nativeServer;
    this.url = nativeServer.url;
    this.closed = closed;
  }

  /** Stops accepting connections and ends every session. */
  close() {
    return settle((done) => this.#native.close(done));
  }
}

/** Pumps an endpoint's answer into a node:http response. */
async function respond(response, res) {
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  // When the client goes away, the chunk being read is abandoned and the body ended, so that an
  // SSE stream waiting for its next event holds nothing open.
  const gone = new AbortController();
  const onClose = () => {
    gone.abort();
    response.close();
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const chunk = await settle((done) => response.nextChunk(done), { signal: gone.signal });
      if (chunk === null) break;
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch (error) {
    if (gone.signal.aborted) return;
    throw error;
  }
  res.off('close', onClose);
  res.end();
}

/** Reads a request's body, or takes the one a body parser already read. */
async function requestBody(req) {
  if (req.body !== undefined && req.readableEnded) {
    if (Buffer.isBuffer(req.body)) return req.body;
    return Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** An MCP server whose handlers are JavaScript functions. */
class Server {
  #native;
  #completions = { prompts: new Map(), templates: new Map(), fallback: undefined, installed: false };
  #running = new Set();

  /**
   * Creates a server: `info` has `name` and `version` (and `title`, `description`, `icons`,
   * `websiteUrl`); `options` has `instructions`, `pageSize`, `logLevel`,
   * `resourceSubscriptions`, `requestTimeoutMs`, `capabilities` and `tasks`. Both may be
   * one object.
   */
  constructor(info, options = {}) {
    this.#native = sync(() => new native.NativeServer(JSON.stringify(defined({ ...info, ...options }))));
    natives.set(this, this.#native);
  }

  /** The capabilities the server declares now. */
  get capabilities() {
    return JSON.parse(this.#native.capabilities());
  }

  /**
   * Registers a tool. `inputSchema` and `outputSchema` are JSON Schema, zod schemas, or raw
   * shapes of zod schemas; with zod, the arguments are parsed by it before the handler gets
   * them. `app`, a `ui://` URI of `appView`, binds the tool to that view (MCP Apps), and
   * `visibility` (`['model']`, `['app']` or both) says who may call it; the core writes both
   * into the tool's `_meta.ui`. A tool of the same name throws a `ConfigError` unless `config.replace`
   * is true.
   */
  registerTool(name, config, handler) {
    const { inputSchema, outputSchema, replace = false, ...rest } = config ?? {};
    const zod = zodSchema(inputSchema);
    const descriptor = defined({
      name,
      ...rest,
      inputSchema: jsonSchema(inputSchema, 'input'),
      outputSchema: jsonSchema(outputSchema, 'output'),
    });
    const run =
      zod === undefined
        ? (args, ctx) => handler(args, new Context(ctx))
        : async (args, ctx) => handler(await zod.parseAsync(args), new Context(ctx));
    sync(() => this.#native.addTool(JSON.stringify(descriptor), trampoline(run), replace === true));
    return { name, remove: () => this.removeTool(name) };
  }

  /**
   * Registers a resource at a fixed URI (`handler(uri, ctx)`) or a URI template given as a
   * `ResourceTemplate` (`handler(uri, variables, ctx)`). The handler returns text, bytes,
   * JSON, contents objects or a whole result. A resource at the same URI (or a template with
   * the same URI template) throws a `ConfigError` unless `metadata.replace` is true.
   */
  registerResource(name, uriOrTemplate, fullMetadata, handler) {
    const { replace = false, ...metadata } = fullMetadata ?? {};
    if (uriOrTemplate instanceof ResourceTemplate) {
      const uriTemplate = uriOrTemplate.uriTemplate;
      const descriptor = JSON.stringify(defined({ name, uriTemplate, ...metadata }));
      const run = ({ uri, variables }, ctx) => mapValue(handler(toUrl(uri), variables, new Context(ctx)), resourceValue);
      const { list } = uriOrTemplate;
      const lister = list === undefined ? null : trampoline((_payload, ctx) => list(new Context(ctx)));
      sync(() => this.#native.addResourceTemplate(descriptor, trampoline(run), replace === true, lister));
      if (uriOrTemplate.complete !== undefined) this.#complete('templates', uriTemplate, uriOrTemplate.complete);
      return { name, remove: () => this.removeResourceTemplate(uriTemplate) };
    }
    const uri = String(uriOrTemplate);
    const descriptor = JSON.stringify(defined({ name, uri, ...metadata }));
    const run = (payload, ctx) => mapValue(handler(toUrl(payload.uri), new Context(ctx)), resourceValue);
    sync(() => this.#native.addResource(descriptor, trampoline(run), replace === true));
    return { name, remove: () => this.removeResource(uri) };
  }

  /**
   * Registers a prompt. `argsSchema` is a raw shape of zod schemas (or `arguments` the
   * prompt arguments themselves); `complete` maps argument names to completion functions
   * `(value, context) => string[]`. A prompt of the same name throws a `ConfigError` unless
   * `config.replace` is true.
   */
  registerPrompt(name, config, handler) {
    const { argsSchema, complete, replace = false, ...rest } = config ?? {};
    const args = argsSchema === undefined ? rest.arguments : promptArguments(argsSchema);
    const descriptor = JSON.stringify(defined({ name, ...rest, arguments: args }));
    const zod = argsSchema === undefined ? undefined : zodSchema(argsSchema);
    const run =
      zod === undefined
        ? (payload, ctx) => handler(payload, new Context(ctx))
        : async (payload, ctx) => handler(await zod.parseAsync(payload), new Context(ctx));
    sync(() => this.#native.addPrompt(descriptor, trampoline(run), replace === true));
    if (complete !== undefined) this.#complete('prompts', name, complete);
    return { name, remove: () => this.removePrompt(name) };
  }

  /**
   * Answers `completion/complete` requests that no prompt's or template's `complete` map
   * answers: `handler(params, ctx)` returns the values or a whole result.
   */
  setCompletionHandler(handler) {
    this.#completions.fallback = handler;
    this.#installCompletions();
  }

  #complete(kind, key, functions) {
    this.#completions[kind].set(key, functions);
    this.#installCompletions();
  }

  #installCompletions() {
    if (this.#completions.installed) return;
    this.#completions.installed = true;
    const run = (params, ctx) => {
      const ref = params.ref ?? {};
      const table = ref.type === 'ref/prompt' ? this.#completions.prompts.get(ref.name) : this.#completions.templates.get(ref.uri);
      const complete = table?.[params.argument?.name];
      if (complete !== undefined) return complete(params.argument.value ?? '', { arguments: params.context?.arguments ?? {} });
      if (this.#completions.fallback !== undefined) return this.#completions.fallback(params, new Context(ctx));
      return [];
    };
    sync(() => this.#native.setCompletion(trampoline(run)));
  }

  /**
   * Adds a middleware around every message the server's sessions receive and send, inside
   * those already added (the first added is the outermost), for the sessions started from now
   * on; returns the server. A function `async (message, next) => outcome` sees the message
   * (`method`, `params`, `isRequest`, `id`, `direction`, `role`, `sessionId`,
   * `protocolVersion`, `identity`, `target`) and either passes it on with `next(message)`
   * (after changing its `method` or `params`, or as it is when omitted), which resolves to the
   * outcome, or returns an outcome of its own, or throws: an `McpError` fails the request with
   * its code and data. `middleware.timing()`, `middleware.rateLimit(...)` and
   * `middleware.cache(...)` are the built-in ones; bad settings throw an `InvalidInputError`.
   */
  use(middleware) {
    addMiddleware(this.#native, middleware);
    return this;
  }

  /** Sets the handler that hears a client's `notifications/roots/list_changed`; `ctx.listRoots()` asks for them. */
  onRootsChanged(handler) {
    sync(() => this.#native.onRootsChanged(trampoline((_payload, ctx) => handler(new Context(ctx)))));
  }

  /** Removes a tool; clients hear that the list changed. Returns whether it existed. */
  removeTool(name) {
    return this.#native.removeTool(name);
  }

  /** Removes a resource by URI; returns whether it existed. */
  removeResource(uri) {
    return this.#native.removeResource(String(uri));
  }

  /** Removes a resource template by its URI template; returns whether it existed. */
  removeResourceTemplate(uriTemplate) {
    this.#completions.templates.delete(uriTemplate);
    return this.#native.removeResourceTemplate(uriTemplate);
  }

  /** Removes a prompt; returns whether it existed. */
  removePrompt(name) {
    this.#completions.prompts.delete(name);
    return this.#native.removePrompt(name);
  }

  /**
   * Serves a skill of the skills extension (`io.modelcontextprotocol/skills`): `skillMd` is its
   * SKILL.md, whose YAML frontmatter gives its `name` and `description`, and `files` maps each
   * supporting file's path within the skill to its text. Each file is served as a resource under
   * `skill://<name>/`. A skill of the same name throws a `ConfigError` unless `replace` is
   * true, which also stops serving the old skill's files that the new one lacks.
   */
  addSkill(skillMd, files = {}, { replace = false } = {}) {
    sync(() => this.#native.addSkill(JSON.stringify({ skillMd: String(skillMd), files }), replace === true));
  }

  /**
   * Serves the HTML view of an app (MCP Apps) at `uri`, a `ui://` URI, which hosts that render
   * apps show in a sandboxed frame; bind tools to it with `registerTool(name, { app: uri })`.
   * `csp` lists the origins the view may reach (`connectDomains`, `resourceDomains`,
   * `frameDomains`, `baseUriDomains`), `permissions` the browser features it asks for
   * (`camera`, `microphone`, `geolocation`, `clipboardWrite`, each `{}`), `domain` a dedicated
   * origin in the host's format and `prefersBorder` whether the host draws a border. The server
   * then declares the Apps extension; clients without it see neither the view nor the tools
   * only a view may call. Another scheme, or a URI already served, throws a `ConfigError`.
   */
  appView(uri, html, { name, csp, permissions, domain, prefersBorder } = {}) {
    const descriptor = defined({ uri: String(uri), name: name ?? String(uri), html: String(html), csp, permissions, domain, prefersBorder });
    sync(() => this.#native.addAppView(JSON.stringify(descriptor)));
  }

  /** Tells the clients subscribed to `uri` that the resource changed. */
  notifyResourceUpdated(uri) {
    this.#native.notifyResourceUpdated(String(uri));
  }

  /** Sends a log message to every client whose level lets it through. */
  log(level, data, logger) {
    sync(() => this.#native.log(level, JSON.stringify(data ?? null), logger ?? null));
  }

  /** Serves one client over this process's stdin and stdout; resolves when it leaves. */
  serveStdio() {
    const stop = new AbortController();
    const entry = { close: () => stop.abort(STOPPED) };
    this.#running.add(entry);
    return settle((done) => this.#native.serveStdio(done), { signal: stop.signal })
      .catch((error) => {
        if (error !== STOPPED) throw error;
      })
      .finally(() => this.#running.delete(entry));
  }

  /**
   * Serves Streamable HTTP on its own port: `host` (127.0.0.1), `port` (8000; 0 picks one),
   * `path` (/mcp), `allowedHosts`, `allowedOrigins`, `jsonResponse`, `stateful`,
   * `sessionIdleTimeoutMs`, `maxBodySize`, `maxBufferedBodyBytes`, `sseRetryMs`, `keepAliveMs`,
   * `eventStoreCapacity`. `cluster: { url, prefix, maxEventsPerStream, livenessTtlMs,
   * commandTimeoutMs }` shares the sessions with other processes through Redis. `auth` protects the server with OAuth 2.1, its tokens checked by
   * `auth.jwt` or by `verifier(token)`, which returns the caller's identity (or a promise of
   * it), or `null` or throws to refuse the token. The process stays alive until the handle is
   * closed.
   */
  async serveHttp(options = {}) {
    const { verifier, ...rest } = options;
    const json = JSON.stringify(defined(rest));
    const nativeServer = await settle((done) =>
      verifier === undefined
        ? this.#native.serveHttp(json, done)
        : this.#native.serveHttpWithVerifier(json, verifierOf(verifier), done),
    );
    const closed = settle((done) => nativeServer.wait(done));
    const handle = new HttpServerHandle(nativeServer, closed);
    this.#running.add(handle);
    closed.finally(() => this.#running.delete(handle)).catch(() => {});
    return handle;
  }

  /**
   * Returns a `(req, res)` function that answers MCP exchanges inside an existing node:http
   * server or Express application; the options are those of `serveHttp` but `host` and
   * `port`.
   */
  httpHandler(options = {}) {
    const { verifier, ...rest } = options;
    const json = JSON.stringify(defined(rest));
    const endpoint = sync(() =>
      verifier === undefined ? this.#native.httpEndpoint(json) : this.#native.httpEndpointWithVerifier(json, verifierOf(verifier)),
    );
    return (req, res) => {
      const answer = async () => {
        const body = await requestBody(req);
        const uri = req.originalUrl ?? req.url;
        const response = await settle((done) => endpoint.handle(req.method, uri, req.rawHeaders, body, done));
        await respond(response, res);
      };
      answer().catch((error) => {
        if (res.headersSent) res.destroy(error);
        else res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error.message));
      });
    };
  }

  /** Stops serving: closes its HTTP servers and its stdio session. */
  async close() {
    const running = [...this.#running];
    this.#running.clear();
    await Promise.all(running.map((entry) => entry.close()));
  }
}

/** Wraps a token verifier `(token) => identity | null` as a trampoline. */
function verifierOf(verifier) {
  if (typeof verifier !== 'function') throw new TypeError('verifier must be a function (token) => identity | null');
  return trampoline(({ token }) => verifier(token));
}

/** Applies `map` to a value or to the value of a promise. */
function mapValue(value, map) {
  if (value !== null && typeof value === 'object' && typeof value.then === 'function') return value.then(map);
  return map(value);
}

module.exports = { Server, Context, ResourceTemplate, HttpServerHandle, nativeOf: (server) => natives.get(server) };
