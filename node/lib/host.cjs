'use strict';
// One client for many servers: the `mcpServers` configuration of Claude Desktop, Cursor and VS
// Code, one view of what the ready servers offer, calls routed by namespaced names, and events.
// The core does every piece of the work; this adds the JavaScript idioms.

const { EventEmitter } = require('node:events');
const { fileURLToPath } = require('node:url');
const native = require('./native.cjs');
const { sync } = require('./errors.cjs');
const { settle, trampoline } = require('./call.cjs');
const { Context } = require('./server.cjs');
const { handlerCallbacks, loginCallbacks, middlewareCallbacks } = require('./client.cjs');

/** The event each notification of a server is also emitted as, with the server's name. */
const NOTIFICATIONS = {
  'notifications/message': 'log',
  'notifications/resources/updated': 'resourceUpdated',
  'notifications/elicitation/complete': 'elicitationComplete',
};

/** The event each host event is emitted as, by its type. */
const EVENTS = { stateChanged: 'state', listChanged: 'listChanged', collisions: 'collisions', lagged: 'lagged' };

/** The keys of the host options that go to the bridge. */
const SPEC_KEYS = ['name', 'version', 'title', 'icons', 'websiteUrl', 'protocolVersion', 'requestTimeoutMs', 'capabilities', 'separator', 'redirectUri', 'apps'];

/** The JSON text of a host call's options as the bridge reads them, and its progress listener. */
function callOptions(options, task) {
  const { timeoutMs, maxTotalTimeoutMs, onprogress, onProgress } = options ?? {};
  // JSON has no infinities: they cross as text, for the bridge to refuse by name.
  const json = JSON.stringify({ timeoutMs, maxTotalTimeoutMs, task }, (_key, value) =>
    typeof value === 'number' && !Number.isFinite(value) ? String(value) : value,
  );
  const listener = onprogress ?? onProgress;
  const progress = listener === undefined ? null : (params) => listener(JSON.parse(params));
  return [json, progress];
}

/**
 * Wraps a user's handler `(params, ctx)` as a trampoline whose context names the server (roots
 * payloads carry the server alone, so their handler gets no params).
 */
function handlerOf(handler) {
  return trampoline(({ server, params }, ctx) => {
    const context = new Context(ctx);
    context.server = server;
    return handler(params, context);
  });
}

/**
 * Builds the native callbacks the options ask for, the notification listener and the options'
 * `middleware`, which every server's connection runs.
 */
function callbacksOf(options, hear) {
  const callbacks = handlerCallbacks(options, handlerOf);
  callbacks.notification(trampoline((notification) => hear(notification)));
  return loginCallbacks(middlewareCallbacks(callbacks, options), options);
}

/** Proves that a host comes from `Host.connect`. */
const CONNECT = Symbol('connect');

/** Proves that an events reader comes from `host.events()`. */
const EVENTS_TOKEN = Symbol('events');

/**
 * One client for many servers, made by `Host.connect`. It emits `state`, `listChanged`,
 * `collisions` and `lagged` for the host's events (each with the event object), and `log`,
 * `resourceUpdated`, `elicitationComplete` (with the params and the server's name) and
 * `notification` (with `{ server, method, params }`) for what the servers send.
 */
class Host extends EventEmitter {
  #native;
  #alive;
  #pumping = false;

  /** Use `Host.connect`. */
  constructor(token) {
    super();
    if (token !== CONNECT) throw new TypeError('use Host.connect()');
  }

  /**
   * Connects to every enabled server of `config` at once and resolves once each is ready or
   * failed; a server that fails does not fail the host (`state(name)` says why).
   *
   * `config` is the path of a configuration file (a string or a `file:` URL), the whole
   * configuration (`{ mcpServers }`), or the `mcpServers` object alone. Options: `name`,
   * `version`, `title` (the client the servers see), `protocolVersion`, `requestTimeoutMs`,
   * `separator` (`__` by default, as in `calc__add`), `capabilities`, `apps` (`true` declares
   * MCP Apps: tools bound to a view say whether the model may call them, `visibleToModel`, and
   * `readAppView` reads their view), and the handlers that
   * answer every server, whose context's `server` names the server that asks: `sampling` (a
   * function `(params, ctx)`, or `{ handler, tools }`), `elicitation` (a function, or
   * `{ handler, form, url }`) and `roots` (an array, or a function `(ctx)`). Servers
   * configured with `oauth` log the user in as a `Client` does: `authorizer`
   * (`(authorizationUrl) => redirectUrl`) with `redirectUri`, where the authorization server
   * sends the user back, and `tokenStore` (`{ load(resource), save(resource, tokens) }`), which
   * keeps every server's tokens between runs.
   */
  static async connect(config, options = {}) {
    const host = new Host(CONNECT);
    const callbacks = callbacksOf(options, (notification) => host.#hear(notification));
    const spec = Object.fromEntries(SPEC_KEYS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]));
    const json = JSON.stringify(config instanceof URL ? fileURLToPath(config) : config);
    host.#native = await settle((done) => native.NativeHost.connect(json, JSON.stringify(spec), callbacks, done));
    // Like a socket, an open host keeps the process alive until it is closed.
    host.#alive = setInterval(() => {}, 2 ** 30);
    host.on('newListener', (event) => {
      if (Object.values(EVENTS).includes(event) || event === 'event') host.#pump();
    });
    return host;
  }

  #hear({ server, method, params }) {
    this.emit('notification', { server, method, params });
    const event = NOTIFICATIONS[method];
    if (event !== undefined) this.emit(event, params, server);
  }

  /** Emits the host's events while the host is open, once a listener wants them. */
  async #pump() {
    if (this.#pumping) return;
    this.#pumping = true;
    for await (const event of this.events()) {
      this.emit('event', event);
      const name = EVENTS[event.type];
      if (name !== undefined) this.emit(name, event);
    }
  }

  /** Every configured server, in the order of the configuration: `[{ name, state, reason, stderr }]`. */
  servers() {
    return JSON.parse(this.#native.servers());
  }

  /**
   * The state of the server `name`: `{ state }`, one of `disabled`, `connecting`, `ready`,
   * `failed` (with `reason` and the end of its `stderr`) and `closed`. An unknown name throws
   * a `ConfigError`.
   */
  state(name) {
    return JSON.parse(sync(() => this.#native.state(String(name))));
  }

  /** The tools of every ready server under their host names, each with its `server`. */
  tools() {
    return JSON.parse(this.#native.tools());
  }

  /** The prompts of every ready server under their host names, each with its `server`. */
  prompts() {
    return JSON.parse(this.#native.prompts());
  }

  /** The resources of every ready server, each with its `server`. */
  resources() {
    return JSON.parse(this.#native.resources());
  }

  /** The resource templates of every ready server, each with its `server`. */
  resourceTemplates() {
    return JSON.parse(this.#native.resourceTemplates());
  }

  /** The names several ready servers offer at once (`[{ kind, name, servers }]`), offered by none. */
  collisions() {
    return JSON.parse(this.#native.collisions());
  }

  /**
   * Calls a tool by its host name. Options: `timeoutMs` (restarted by each progress
   * notification, which `onprogress(params)` hears), `maxTotalTimeoutMs` (however much
   * progress the call reports) and `signal`. A server that is not ready, or goes away during
   * the call, rejects with a `TransportClosedError` naming it.
   */
  callTool(name, args, options = {}) {
    const [json, progress] = callOptions(options);
    return settle((done) => this.#native.callTool(String(name), JSON.stringify(args ?? {}), json, progress, done), {
      signal: options?.signal,
      map: JSON.parse,
    });
  }

  /**
   * Calls a tool by its host name as a task on the server that offers it and resolves at once
   * to the task with the `server` that runs it (`{ taskId, status, ..., server }`); follow it
   * with `getTask`, `getTaskResult` or `cancelTask`. Options: `ttl` (milliseconds the server
   * keeps the task), `timeoutMs` and `signal`.
   */
  async callToolAsTask(name, args, options = {}) {
    const [json] = callOptions(options, { ttl: options?.ttl });
    const created = await settle(
      (done) => this.#native.callTool(String(name), JSON.stringify(args ?? {}), json, null, done),
      { signal: options?.signal, map: JSON.parse },
    );
    return { ...created.task, server: created.server };
  }

  /** Returns the current state of the task `taskId` of the server `server`. Options: `timeoutMs`, `signal`. */
  getTask(server, taskId, options = {}) {
    return this.#task((json, done) => this.#native.getTask(String(server), String(taskId), json, done), options);
  }

  /** Waits until the task `taskId` of the server `server` ends and returns the tool's result. */
  getTaskResult(server, taskId, options = {}) {
    return this.#task((json, done) => this.#native.taskResult(String(server), String(taskId), json, done), options);
  }

  /** Cancels the task `taskId` of the server `server` and returns its final state. */
  cancelTask(server, taskId, options = {}) {
    return this.#task((json, done) => this.#native.cancelTask(String(server), String(taskId), json, done), options);
  }

  #task(start, options) {
    const [json] = callOptions(options);
    return settle((done) => start(json, done), { signal: options?.signal, map: JSON.parse });
  }

  /**
   * Reads a resource from `options.server`, or else from the server that lists `uri` or the
   * one whose template matches it. Options: `server`, `timeoutMs`, `maxTotalTimeoutMs`, `signal`.
   */
  readResource(uri, options = {}) {
    const [json] = callOptions(options);
    const server = options?.server === undefined ? null : String(options.server);
    return settle((done) => this.#native.readResource(String(uri), server, json, done), {
      signal: options?.signal,
      map: JSON.parse,
    });
  }

  /**
   * Reads the view of the app (MCP Apps) that the tool of host name `tool` is bound to, from its
   * server, and resolves to `{ uri, html, meta }`; the host needs the option `apps: true`. A tool
   * without a view rejects with a `ConfigError`.
   */
  readAppView(tool) {
    return settle((done) => this.#native.readAppView(String(tool), done), { map: JSON.parse });
  }

  /** Gets a prompt by its host name with string arguments; options as for `callTool`. */
  getPrompt(name, args, options = {}) {
    const [json] = callOptions(options);
    return settle((done) => this.#native.getPrompt(String(name), JSON.stringify(args ?? {}), json, done), {
      signal: options?.signal,
      map: JSON.parse,
    });
  }

  /** Connects to the server `name` again: a ready one is closed first, a failed one tried anew. */
  restart(name) {
    sync(() => this.#native.restart(String(name)));
  }

  /** Tells every ready server that the roots changed. */
  notifyRootsChanged() {
    sync(() => this.#native.notifyRootsChanged());
  }

  /**
   * The host's events from now on, as an async iterator of `{ type, ... }`: `stateChanged`
   * (`server`, `state`, `reason`, `stderr`), `listChanged` (`server`, `list`), `collisions`
   * (`collisions`) and `lagged` (`missed`). It ends once the host is closed; leaving a
   * `for await` loop closes it.
   */
  events() {
    return new HostEvents(this.#native.events(), EVENTS_TOKEN);
  }

  /** Closes every server and resolves once each has ended. */
  close() {
    clearInterval(this.#alive);
    return settle((done) => this.#native.close(done));
  }
}

if (Symbol.asyncDispose !== undefined) {
  /** Closes the host at the end of an `await using` block. */
  Host.prototype[Symbol.asyncDispose] = function asyncDispose() {
    return this.close();
  };
}

/** A reader of a host's events, made by `host.events()`: an async iterator. */
class HostEvents {
  #native;

  /** Use `host.events()`. */
  constructor(nativeEvents, token) {
    if (token !== EVENTS_TOKEN) throw new TypeError('use host.events()');
    this.#native = nativeEvents;
  }

  /** Waits for the next event; the iteration is done once the reader or the host is closed. */
  async next() {
    const event = await settle((done) => this.#native.next(done), { map: JSON.parse });
    if (event !== null) return { value: event, done: false };
    this.close();
    return { value: undefined, done: true };
  }

  /** Closes the reader when a `for await` loop is left early. */
  async return() {
    this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /** Ends the reader; a waiting `next()` is then done. Closing again does nothing. */
  close() {
    this.#native.close();
  }
}

module.exports = { Host, HostEvents };
