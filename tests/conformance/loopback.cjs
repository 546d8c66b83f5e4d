'use strict';
// Preloaded into the conformance CLI's Node (NODE_OPTIONS="--require <this file>") so that every
// TCP server it opens, in particular the mock servers of the client scenarios, which otherwise
// listen on all interfaces, listens on 127.0.0.1 only.
//
// The CLI reads `server.address().port` right after `listen(0)` returns, so the bind must stay
// synchronous. Node resolves any explicit host through `dns.lookup`, which answers on a later
// tick; while one of our rewritten `listen` calls runs, the lookup of our own loopback literal
// is therefore answered at once. Unix-socket paths, handles and file descriptors are left alone.

const dns = require('node:dns');
const net = require('node:net');

const LOOPBACK = '127.0.0.1';
let rewriting = 0;

const originalLookup = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  if (rewriting > 0 && hostname === LOOPBACK) {
    const done = typeof options === 'function' ? options : callback;
    if (options !== null && typeof options === 'object' && options.all) {
      done(null, [{ address: LOOPBACK, family: 4 }]);
    } else {
      done(null, LOOPBACK, 4);
    }
    return {};
  }
  return originalLookup.apply(this, arguments);
};

function isPort(value) {
  return typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value));
}

// Returns the arguments with the host forced to loopback, or null to leave the call unchanged.
function loopbackArgs(args) {
  const [first, ...rest] = args;
  if (first === undefined || first === null || typeof first === 'function') {
    return [0, LOOPBACK, ...args.filter((a) => a !== undefined && a !== null)];
  }
  if (isPort(first)) {
    if (rest.length > 0 && (typeof rest[0] === 'string' || rest[0] === undefined || rest[0] === null)) {
      rest.shift();
    }
    return [first, LOOPBACK, ...rest];
  }
  if (typeof first === 'object' && first._handle === undefined && first.fd === undefined && first.path === undefined) {
    const options = { ...first, host: LOOPBACK };
    delete options.ipv6Only;
    return [options, ...rest];
  }
  return null;
}

const originalListen = net.Server.prototype.listen;
net.Server.prototype.listen = function listen(...args) {
  const rewritten = loopbackArgs(args);
  if (rewritten === null) {
    return originalListen.apply(this, args);
  }
  rewriting += 1;
  try {
    return originalListen.apply(this, rewritten);
  } finally {
    rewriting -= 1;
  }
};
