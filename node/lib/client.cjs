'use strict';
// The client API for hosts: connect over stdio, Streamable HTTP or in process, send any
// request, hear notifications as events, and answer the server's sampling, elicitation and
// roots requests with handlers. The core does every piece of protocol work.

const { EventEmitter } = require('node:events');
const native = require('./native.cjs');
const { sync, TransportClosedError } = require('./errors.cjs');
const { settle, trampoline } = require('./call.cjs');
const { Context, nativeOf } = require('./server.cjs');
const { addMiddleware } = require('./middleware.cjs');

/** The friendlier event each notification is also emitted as. */
const EVENTS = {
  'notifications/message': 'log',
  'notifications/tools/list_changed': 'toolsChanged',
  'notifications/resources/list_changed': 'resourcesChanged',
  'notifications/prompts/list_changed': 'promptsChanged',
  'notifications/resources/updated': 'resourceUpdated',
  'notifications/elicitation/complete': 'elicitationComplete',
  'notifications/tasks/status': 'taskStatus',
};

/** The keys of the client options that describe the client itself. */
const SPEC_KEYS = ['name', 'version', 'title', 'icons', 'websiteUrl', 'protocolVersion', 'requestTimeoutMs', 'capabilities', 'apps'];

function clientSpec(options) {
  return Object.fromEntries(SPEC_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));
}

/** The JSON text of a call's options as the bridge reads them, and its progress listener. */
function callOptions(options) {
  const { timeout, meta, task, onProgress } = options ?? {};
  // JSON has no infinities: they cross as text, for the bridge to refuse by name.
  const json = JSON.stringify({ timeoutMs: timeout ?? undefined, task, meta }, (_key, value) =>
    typeof value === 'number' && !Number.isFinite(value) ? String(value) : value,
  );
  const progress = onProgress === undefined ? null : (params) => onProgress(JSON.parse(params));
  return [json, progress];
}

/** The result of a call that answers nothing. */
const empty = () => ({});

/** Wraps a user's handler `(params, ctx)` as a trampoline. */
function handlerOf(handler) {
  return trampoline((params, ctx) => handler(params, new Context(ctx)));
}

/**
 * Builds the native callbacks of the handlers the options name (sampling, elicitation, roots),
 * each user handler `(params, ctx)` made a trampoline by `wrap`.
 */
function handlerCallbacks(options, wrap) {
  const callbacks = new native.NativeCallbacks();
  const { sampling, elicitation, roots } = options;
  if (sampling !== undefined) {
    const { handler, tools = false } = typeof sampling === 'function' ? { handler: sampling } : sampling;
    callbacks.sampling(wrap(handler), tools);
  }
  if (elicitation !== undefined) {
    const { handler, form = true, url = false } = typeof elicitation === 'function' ? { handler: elicitation } : elicitation;
    callbacks.elicitation(wrap(handler), form, url);
  }
  if (roots !== undefined) {
    const list = typeof roots === 'function' ? roots : () => roots;
    callbacks.roots(wrap((_params, ctx) => list(ctx)));
  }
  return callbacks;
}

/**
 * Builds the native callbacks the options ask for, the notification listener, the close
 * listener and the options' `middleware`, in order.
 */
function callbacksOf(options, emit, closed) {
  const callbacks = handlerCallbacks(options, handlerOf);
  callbacks.notification(trampoline((notification) => emit(notification)));
  callbacks.close(trampoline((info) => closed(info)));
  return loginCallbacks(middlewareCallbacks(callbacks, options), options);
}

/** Adds the options' `middleware` to `callbacks`, in order, the first outermost. */
function middlewareCallbacks(callbacks, options) {
  const { middleware = [] } = options;
  if (!Array.isArray(middleware)) throw new TypeError('middleware must be an array of middleware');
  for (const each of middleware) addMiddleware(callbacks, each);
  return callbacks;
}

/** Adds the options' `authorizer` and `tokenStore` (an OAuth login's callbacks) to `callbacks`. */
function loginCallbacks(callbacks, options) {
  const { authorizer, tokenStore } = options;
  if (authorizer !== undefined) {
    if (typeof authorizer !== 'function') throw new TypeError('authorizer must be a function (authorizationUrl) => redirectUrl');
    callbacks.authorizer(trampoline(({ authorizationUrl }) => authorizer(authorizationUrl)));
  }
  if (tokenStore !== undefined) {
    callbacks.tokenStore(
      trampoline(({ op, resource, tokens }) => (op === 'load' ? tokenStore.load(resource) : tokenStore.save(resource, tokens))),
    );
  }
  return callbacks;
}

/**
 * A connected MCP client; notifications arrive as events. When the connection ends, `onclose`
 * and the `close` event hear how, and `onerror` hears a connection the server ended.
 */
class Client extends EventEmitter {
  #native;
  #info;
  #alive;
  #closeInfo;
  /** How the connection ended before `connect` resolved, or `null` once it has. */
  #early = undefined;

  /**
   * Called once when the connection ends, as the TypeScript SDK's `onclose` is, with
   * `{ reason: 'closed' | 'disconnected', message, exitCode, signal, stderr }`.
   */
  onclose = undefined;

  /**
   * Called with a `TransportClosedError` when the server ended the connection (a spawned
   * server exited: the message names its exit code and ends with its stderr).
   */
  onerror = undefined;

  /** Use `Client.connect`, `connectStdio`, `connectHttp` or `connectInProcess`. */
  constructor(token) {
    super();
    if (token !== CONNECT) throw new TypeError('use Client.connect(), connectStdio(), connectHttp() or connectInProcess()');
  }

  static async #open(start, options) {
    const client = new Client(CONNECT);
    const callbacks = callbacksOf(
      options,
      (notification) => client.#hear(notification),
      (info) => client.#closed(info),
    );
    const spec = JSON.stringify(clientSpec(options));
    client.#native = await settle((done) => start(spec, callbacks, done));
    client.#info = JSON.parse(client.#native.serverInfo());
    // Like a socket, an open connection keeps the process alive until it is closed.
    client.#alive = setInterval(() => {}, 2 ** 30);
    const early = client.#early;
    client.#early = null;
    // A connection that ended while connecting is told once the caller holds the client.
    if (early !== undefined) setImmediate(() => client.#closed(early));
    return client;
  }

  /**
   * Connects to the server that `transport` names: `{ type: 'stdio', command, args, env, cwd }`
   * or `{ type: 'http', url, headers, bearerToken, timeoutMs, openGetStream, legacyFallback,
   * auth }`, where `auth` logs in to a protected server through the options' `authorizer`
   * (and keeps tokens in their `tokenStore`).
   */
  static connect(transport, options = {}) {
    return Client.#open((spec, callbacks, done) => native.NativeClient.connect(JSON.stringify(transport), spec, callbacks, done), options);
  }

  /** Spawns `command` and speaks MCP over its stdin and stdout. */
  static connectStdio({ command, args, env, cwd }, options = {}) {
    return Client.connect({ type: 'stdio', command, args, env, cwd }, options);
  }

  /** Speaks Streamable HTTP to `url`. */
  static connectHttp(url, transport = {}, options = {}) {
    return Client.connect({ type: 'http', url: String(url), ...transport }, options);
  }

  /** Connects to a server of this process over an in-memory transport. */
  static connectInProcess(server, options = {}) {
    const nativeServer = nativeOf(server);
    return Client.#open((spec, callbacks, done) => native.NativeClient.connectMemory(nativeServer, spec, callbacks, done), options);
  }

  #hear(notification) {
    this.emit('notification', notification);
    this.emit(notification.method, notification.params);
    const event = EVENTS[notification.method];
    if (event !== undefined) this.emit(event, notification.params);
  }

  #closed(info) {
    if (this.#early !== null) {
      this.#early = info;
      return;
    }
    this.#closeInfo = info;
    // A closed connection no longer keeps the process alive.
    clearInterval(this.#alive);
    // A listener's failure is its own: the others still hear of the close.
    const run = (listener, value) => {
      try {
        listener?.(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    };
    if (info.reason === 'disconnected') run(this.onerror, new TransportClosedError(info.message));
    run(this.onclose, info);
    this.emit('close', info);
  }

  /**
   * How the connection ended (`{ reason, message, exitCode, signal, stderr }`), or
   * `undefined` while it is open.
   */
  get closeInfo() {
    return this.#closeInfo;
  }

  /** The server's `initialize` result. */
  get initializeResult() {
    return this.#info;
  }

  /** The server's name, version and other details. */
  get serverInfo() {
    return this.#info.serverInfo;
  }

  /** The capabilities the server declared. */
  get serverCapabilities() {
    return this.#info.capabilities;
  }

  /** The server's instructions, if it gave some. */
  get instructions() {
    return this.#info.instructions;
  }

  /** The negotiated protocol version. */
  get protocolVersion() {
    return this.#native.protocolVersion();
  }

  /**
   * Sends any request. Options: `signal` (cancels the request), `timeout` in milliseconds,
   * `onProgress(params)`, `meta` (added to `_meta`) and `task` (task metadata).
   */
  request(method, params = {}, options = {}) {
    const [json, progress] = callOptions(options);
    return settle((done) => this.#native.request(method, JSON.stringify(params ?? {}), json, progress, done), {
      signal: options?.signal,
      map: JSON.parse,
    });
  }

  /** Checks that the server answers (a 2026-07-28 server, which has no `ping`, by `server/discover`). */
  ping(options = {}) {
    return this.#call((json, done) => this.#native.ping(json, done), options, empty);
  }

  /** Lists one page of `kind`: `tools`, `resources`, `resourceTemplates`, `prompts` or `tasks`. */
  list(kind, cursor, options = {}) {
    return this.#call((json, done) => this.#native.list(kind, cursor ?? null, json, done), options);
  }

  /** Lists every item of `kind`, following the cursors. */
  listAll(kind) {
    return settle((done) => this.#native.listAll(kind, done), { map: JSON.parse });
  }

  /** Iterates over the pages of `kind`. */
  async *pages(kind) {
    let cursor;
    do {
      const page = await this.list(kind, cursor);
      yield page;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }

  /** Lists one page of tools. */
  listTools(params = {}, options) {
    return this.list('tools', params?.cursor, options);
  }

  /** Lists one page of resources. */
  listResources(params = {}, options) {
    return this.list('resources', params?.cursor, options);
  }

  /** Lists one page of resource templates. */
  listResourceTemplates(params = {}, options) {
    return this.list('resourceTemplates', params?.cursor, options);
  }

  /** Lists one page of prompts. */
  listPrompts(params = {}, options) {
    return this.list('prompts', params?.cursor, options);
  }

  /**
   * Calls a tool: `callTool(name, args, options)` or `callTool({ name, arguments }, options)`.
   * Options are those of `request`, `onProgress` and `signal` among them.
   */
  callTool(name, args, options = {}) {
    if (typeof name === 'object') return this.callTool(name.name, name.arguments, args);
    const [json, progress] = callOptions(options);
    return settle((done) => this.#native.callTool(name, JSON.stringify(args ?? {}), json, progress, done), {
      signal: options?.signal,
      map: JSON.parse,
    });
  }

  /** Reads a resource. */
  readResource(uri, options = {}) {
    const target = typeof uri === 'object' && !(uri instanceof URL) ? uri.uri : uri;
    return this.#call((json, done) => this.#native.readResource(String(target), json, done), options);
  }

  /**
   * Subscribes to a resource's updates (`resourceUpdated` events); a 2026-07-28 server sends
   * them on the client's `subscriptions/listen` stream, and this resolves once it acknowledged.
   */
  subscribeResource(uri, options = {}) {
    return this.#call((json, done) => this.#native.subscribe(String(uri), json, done), options, empty);
  }

  /** Ends a subscription. */
  unsubscribeResource(uri, options = {}) {
    return this.#call((json, done) => this.#native.unsubscribe(String(uri), json, done), options, empty);
  }

  /** Gets a prompt: `getPrompt(name, args)` or `getPrompt({ name, arguments })`. */
  getPrompt(name, args, options = {}) {
    if (typeof name === 'object') return this.getPrompt(name.name, name.arguments, args);
    return this.#call((json, done) => this.#native.getPrompt(name, JSON.stringify(args ?? {}), json, done), options);
  }

  /** Asks for completions of an argument. */
  complete(params, options = {}) {
    return this.#call((json, done) => this.#native.complete(JSON.stringify(params), json, done), options);
  }

  /**
   * Sets the level of the log messages the server sends; a 2026-07-28 server gets the level
   * with every later request.
   */
  setLoggingLevel(level, options = {}) {
    return this.#call((json, done) => this.#native.setLoggingLevel(String(level), json, done), options, empty);
  }

  /**
   * Returns the current state of a task (`tasks/get`). Options: `signal` and `timeout`.
   */
  getTask(taskId, options = {}) {
    return this.#call((json, done) => this.#native.getTask(String(taskId), json, done), options);
  }

  /**
   * Waits until a task ends and returns the result of its request (`tasks/result`): for a tool
   * called as a task, its `CallToolResult`. Options: `signal` and `timeout`.
   */
  getTaskResult(taskId, options = {}) {
    return this.#call((json, done) => this.#native.taskResult(String(taskId), json, done), options);
  }

  /** Cancels a task and returns its final state (`tasks/cancel`). Options: `signal` and `timeout`. */
  cancelTask(taskId, options = {}) {
    return this.#call((json, done) => this.#native.cancelTask(String(taskId), json, done), options);
  }

  /**
   * Reads the view of an app (MCP Apps) at the `ui://` URI `uri` and resolves to
   * `{ uri, html, meta }`, `meta` its `_meta.ui` (`csp`, `permissions`, `domain`,
   * `prefersBorder`); the client needs the option `apps: true`.
   */
  readAppView(uri) {
    return settle((done) => this.#native.readAppView(String(uri), done), { map: JSON.parse });
  }

  /**
   * Lists the server's skills (the `io.modelcontextprotocol/skills` extension), every page,
   * reading no skill file; fails with a `CapabilityMissingError` when the server does not
   * declare the extension.
   */
  listSkills() {
    return settle((done) => this.#native.listSkills(done), { map: JSON.parse });
  }

  /**
   * Loads the skill of `entry` (one of `listSkills`): fetches its `SKILL.md` and resolves to
   * `{ entry, frontmatter, body }` once the file matches the entry's size, digest and
   * frontmatter; otherwise rejects with a `ProtocolError`.
   */
  loadSkill(entry) {
    return settle((done) => this.#native.loadSkill(JSON.stringify(entry), done), { map: JSON.parse });
  }

  /**
   * Reads the supporting file `uri` of the skill of `entry`, which must list it, and resolves
   * to its bytes (a `Buffer`) once they match the entry's size and digest; otherwise rejects
   * with a `ProtocolError`.
   */
  readSkillFile(entry, uri) {
    return settle((done) => this.#native.readSkillFile(JSON.stringify(entry), String(uri), done));
  }

  /**
   * Opens a `subscriptions/listen` stream of a 2026-07-28 server for the notifications
   * `filter` asks for (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`,
   * `resourceSubscriptions`) and resolves once the server acknowledged it. The subscription
   * is an async iterable of the stream's notifications (which are also emitted as events);
   * leaving a `for await` loop closes it. An older server rejects with a
   * `CapabilityMissingError`: it sends its notifications unasked.
   */
  async listen(filter = {}) {
    const native = await settle((done) => this.#native.listen(JSON.stringify(filter ?? {}), done));
    return new Subscription(native, SUBSCRIBE);
  }

  /** Starts a native call that takes the JSON text of the options; it hears no progress. */
  #call(start, options, map = JSON.parse) {
    const [json] = callOptions(options);
    return settle((done) => start(json, done), { signal: options?.signal, map });
  }

  /** Sends a notification to the server. */
  notify(method, params = {}) {
    sync(() => this.#native.notify(method, JSON.stringify(params)));
  }

  /** Tells the server that the client's roots changed. */
  notifyRootsChanged() {
    sync(() => this.#native.notifyRootsChanged());
  }

  /** Lets the process exit while the connection is open, as `socket.unref()` does. */
  unref() {
    this.#alive.unref();
    return this;
  }

  /** Keeps the process alive while the connection is open again (the default). */
  ref() {
    this.#alive.ref();
    return this;
  }

  /** Closes the connection: a stdio server is shut down, an HTTP session deleted. */
  close() {
    clearInterval(this.#alive);
    return settle((done) => this.#native.close(done));
  }
}

if (Symbol.asyncDispose !== undefined) {
  /** Closes the connection at the end of an `await using` block. */
  Client.prototype[Symbol.asyncDispose] = function asyncDispose() {
    return this.close();
  };
}

/** Proves that a client comes from a connect function. */
const CONNECT = Symbol('connect');

/** Proves that a subscription comes from `Client.listen`. */
const SUBSCRIBE = Symbol('subscribe');

/**
 * An open `subscriptions/listen` stream, made by `Client.listen`: an async iterator of its
 * notifications (`{ method, params }`) that ends when the stream ends and closes the stream
 * when a `for await` loop is left.
 */
class Subscription {
  #native;
  #acknowledged;

  /** Use `client.listen()`. */
  constructor(native, token) {
    if (token !== SUBSCRIBE) throw new TypeError('use client.listen()');
    this.#native = native;
    this.#acknowledged = JSON.parse(native.acknowledged());
  }

  /** What the server agreed to send: the requested notifications it supports. */
  get acknowledged() {
    return this.#acknowledged;
  }

  /** Waits for the next notification; the iteration is done once the stream ended. */
  async next() {
    const notification = await settle((done) => this.#native.next(done), { map: JSON.parse });
    if (notification !== null) return { value: notification, done: false };
    await this.close();
    return { value: undefined, done: true };
  }

  /** Closes the stream when a `for await` loop is left early. */
  async return() {
    await this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /** Ends the stream; a waiting `next()` is then done. Closing again does nothing. */
  close() {
    return settle((done) => this.#native.close(done)).then(() => undefined);
  }
}

if (Symbol.asyncDispose !== undefined) {
  /** Closes the stream at the end of an `await using` block. */
  Subscription.prototype[Symbol.asyncDispose] = function asyncDispose() {
    return this.close();
  };
}

module.exports = { Client, Subscription, handlerCallbacks, loginCallbacks, middlewareCallbacks };
