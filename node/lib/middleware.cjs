'use strict';
// Middleware around every message a session receives and sends: JavaScript functions
// `(message, next)` in the style of Koa, and the core's built-in ones (timing, a rate limit, a
// response cache) by their JSON settings. The order, what may be changed and what an error
// does are the core's.

const { sync } = require('./errors.cjs');
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
});

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

module.exports = { middleware, addMiddleware };
