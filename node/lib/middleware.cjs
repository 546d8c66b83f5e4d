'use strict';
// Middleware around every message a session receives and sends: JavaScript functions
// `(message, next)` in the style of Koa, the core's built-in ones (timing, a rate limit, a
// response cache) by their JSON settings, and OpenTelemetry spans over `@opentelemetry/api`
// named as the core plans them. The order, what may be changed and what an error does are the
// core's.

const native = require('./native.cjs');
const { ConfigError, describe, sync } = require('./errors.cjs');
const { settle, trampoline } = require('./call.cjs');

/**
 * One of the core's built-in middleware, made by `middleware.timing()`, `rateLimit()` or
 * `cache()`: `spec` is the JSON the core reads its settings from.
 */
class BuiltinMiddleware {
  constructor(name, settings) {
    this.spec = Object.freeze({ [name]: Object.freeze({ ...settings }) });
    Object.freeze(this);
  }
}

/** The core's built-in middleware; their settings are checked when they are used. */
const middleware = Object.freeze({
  /** Logs every message with how long its outcome took, through the core's tracing. */
  timing: () => new BuiltinMiddleware('timing', {}),
  /**
   * Refuses the requests a caller sends beyond `perSecond` (with bursts of `burst`) with the
   * JSON-RPC error -32003 and `retryAfterMs` in its data; `per` is `caller` (the default),
   * `session` or `global`.
   */
  rateLimit: (settings) => new BuiltinMiddleware('rateLimit', settings),
  /**
   * Answers repeated requests from earlier results while their `ttlMs` (or `defaultTtlMs`, for
   * results without one) says they are fresh, at most `maxTtlMs`, holding `maxEntries`
   * results of `methods` (by default the lists, `resources/read` and `server/discover`).
   */
  cache: (settings) => new BuiltinMiddleware('cache', settings),
  /**
   * Records an OpenTelemetry span around every message with `@opentelemetry/api`, which the
   * application installs: see `openTelemetry` below.
   */
  openTelemetry: (options) => openTelemetry(options),
});

/** Loads `@opentelemetry/api`, which the package does not depend on. */
function openTelemetryApi() {
  try {
    return require('@opentelemetry/api');
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND') throw error;
    throw new ConfigError('middleware.openTelemetry() needs the @opentelemetry/api package: npm install @opentelemetry/api', {
      cause: error,
    });
  }
}

/**
 * A middleware that records a span around every message with `@opentelemetry/api`, as the
 * official SDKs do, on the tracer `mcpweft` of `tracerProvider` (the global one by default).
 * What a server or client receives gets a server span, whose parent is the W3C trace context
 * the peer put in the message's `_meta` (read by the global propagator); a request it sends
 * gets a client span, whose context the global propagator writes into the request's `_meta`.
 * The span names and attributes (`tools/call add`, `mcp.method.name`, `gen_ai.tool.name`,
 * `error.type`, ...) are the core's, the same in every mcpweft language.
 */
function openTelemetry({ tracerProvider } = {}) {
  const api = openTelemetryApi();
  const tracer = tracerProvider === undefined ? api.trace.getTracer('mcpweft') : tracerProvider.getTracer('mcpweft');
  const record = (span, method, outcome) => {
    const recorded = JSON.parse(sync(() => native.telemetryOutcome(method, JSON.stringify(outcome))));
    span.setAttributes(recorded.attributes);
    if (recorded.error !== null) span.setStatus({ code: api.SpanStatusCode.ERROR, message: recorded.error || undefined });
  };
  return async (message, next) => {
    const plan = JSON.parse(sync(() => native.telemetrySpan(JSON.stringify(message))));
    if (plan === null) return next(message);
    const server = plan.kind === 'server';
    const parent = server ? receivedContext(api, message) : api.context.active();
    const kind = server ? api.SpanKind.SERVER : api.SpanKind.CLIENT;
    const span = tracer.startSpan(plan.name, { kind, attributes: plan.attributes }, parent);
    const context = api.trace.setSpan(parent, span);
    if (!server) {
      const params = message.params ?? {};
      if (params._meta === null || typeof params._meta !== 'object') params._meta = {};
      api.propagation.inject(context, params._meta);
      message.params = params;
    }
    try {
      const outcome = await api.context.with(context, () => next(message));
      record(span, message.method, { result: outcome });
      return outcome;
    } catch (error) {
      const [kind, code, text] = describe(error);
      record(span, message.method, { error: { kind, code, message: text } });
      throw error;
    } finally {
      span.end();
    }
  };
}

/**
 * The context a received message's span starts in: with the trace context of its `_meta` when
 * that holds a valid one, otherwise the active context.
 */
function receivedContext(api, message) {
  const active = api.context.active();
  const meta = message.params?._meta;
  if (meta === null || typeof meta !== 'object') return active;
  const carried = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, meta));
  return carried !== undefined && api.isSpanContextValid(carried) ? api.propagation.extract(active, meta) : active;
}

/**
 * Wraps `run(message, next)` as the trampoline a native server or client calls with each
 * message: `next(message)` passes the message on (the one received, as it is now, when
 * omitted) and resolves to the outcome.
 */
function middlewareTrampoline(run) {
  if (typeof run !== 'function') {
    throw new TypeError('a middleware is a function (message, next) => outcome, or middleware.timing(), rateLimit() or cache()');
  }
  return trampoline((message, native) =>
    run(message, (passed = message) => settle((done) => native.run(JSON.stringify(passed), done), { map: JSON.parse })),
  );
}

/**
 * Adds `middleware` to `target`, a native server or a native client's callbacks, inside those
 * already added: a function, or a built-in one by its settings (bad settings throw an
 * `InvalidInputError`).
 */
function addMiddleware(target, middleware) {
  if (middleware instanceof BuiltinMiddleware) {
    sync(() => target.addBuiltinMiddleware(JSON.stringify(middleware.spec)));
    return;
  }
  const run = middlewareTrampoline(middleware);
  sync(() => target.addMiddleware(run));
}

module.exports = { middleware, addMiddleware, openTelemetry };
