'use strict';
// The two directions of a call across the native boundary: a native task settled into a
// promise, and a JavaScript handler run for the bridge (the trampoline).

const { describe, fromNative, sync } = require('./errors.cjs');

/**
 * Starts a native call that settles through `done(error, value)` and returns its promise.
 * `map` turns the value into its JavaScript form; `signal` aborts the call, which cancels it
 * in the core.
 */
function settle(start, { signal, map } = {}) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let pending;
    const onAbort = () => {
      pending?.abort();
      reject(signal.reason);
    };
    const done = (error, value) => {
      signal?.removeEventListener('abort', onAbort);
      try {
        if (error !== null) reject(fromNative(error));
        else resolve(map === undefined ? value : map(value));
      } catch (failure) {
        reject(failure);
      }
    };
    try {
      pending = sync(() => start(done));
    } catch (error) {
      reject(error);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Parses the JSON text of a value that may be `null`. */
function parse(json) {
  return json === null || json === undefined ? undefined : JSON.parse(json);
}

function answer(native, value) {
  // A string crosses as it is: JSON.stringify would scan it once more (on Node 20 and 22, one
  // character at a time), and the native side parse it again. A lone surrogate, which JSON
  // text escapes but a native string cannot hold, takes the JSON path, as every other value.
  if (typeof value === 'string' && value.isWellFormed()) {
    native.resolveText(value);
    return;
  }
  let json;
  try {
    json = JSON.stringify(value === undefined ? null : value) ?? 'null';
  } catch (error) {
    fail(native, error);
    return;
  }
  native.resolve(json);
}

function fail(native, error) {
  try {
    native.reject(...describe(error));
  } catch {
    native.reject('handler', null, 'the handler failed', null, null);
  }
}

/**
 * Wraps `run(payload, native)` as the function the bridge calls with a batch of calls, their
 * payloads (JSON text, or an object the addon built when the payload holds a long string)
 * and their native contexts: it never throws (a throw would end
 * the process), and settles each call exactly once with the value or the error of `run`,
 * awaited when it is a promise.
 */
function trampoline(run) {
  const call = (payload, native) => {
    let result;
    try {
      result = run(typeof payload === 'string' ? JSON.parse(payload) : payload, native);
      if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
        result.then(
          (value) => answer(native, value),
          (error) => fail(native, error),
        );
        return;
      }
    } catch (error) {
      fail(native, error);
      return;
    }
    answer(native, result);
  };
  return (payloads, natives) => {
    for (let i = 0; i < payloads.length; i++) call(payloads[i], natives[i]);
  };
}

module.exports = { settle, parse, trampoline };
