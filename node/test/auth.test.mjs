// Authorization: a server protected by a verifier, the identity in the handler's context, and
// a client that logs in through its authorizer against a small authorization server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';
import { Client, Host, McpError, Server } from '../index.mjs';

function protectedServer() {
  const server = new Server({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) => `${ctx.auth.subject} ${ctx.auth.scopes.join(' ')}`);
  return server;
}

/** Listens on a free loopback port and returns it, so that a server's resource URL can name it. */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Accepts `good` as alice, refuses `refused` quietly and any other token by throwing. */
function verifier(token) {
  if (token === 'good') return { subject: 'alice', clientId: 'app', scopes: ['mcp:read'] };
  if (token === 'refused') return null;
  throw new Error('unknown token');
}

for (const kind of ['sync', 'async']) {
  test(`${kind === 'sync' ? 'a sync' : 'an async'} verifier protects the server and the handler sees the identity`, async () => {
    const port = await freePort();
    const auth = { resource: `http://127.0.0.1:${port}/mcp`, authorizationServers: ['http://127.0.0.1:1'], requiredScopes: ['mcp:read'] };
    const verify = kind === 'sync' ? verifier : async (token) => verifier(token);
    const http = await protectedServer().serveHttp({ port, auth, verifier: verify });
    try {
      const client = await Client.connectHttp(http.url, { bearerToken: 'good' });
      assert.equal((await client.callTool('whoami', {})).content[0].text, 'alice mcp:read');
      await client.close();
      const refusals = { none: /a bearer token is required/, refused: /the verifier refused the token/, bogus: /invalid_token: unknown token/ };
      for (const [token, reason] of Object.entries(refusals)) {
        const transport = token === 'none' ? {} : { bearerToken: token };
        await assert.rejects(Client.connectHttp(http.url, transport), (error) => error instanceof McpError && reason.test(error.message));
      }
    } finally {
      await http.close();
    }
  });
}

test('auth settings and callbacks are checked', async () => {
  const port = await freePort();
  const server = protectedServer();
  await assert.rejects(server.serveHttp({ port, auth: { resource: `http://127.0.0.1:${port}/mcp` } }), {
    name: 'InvalidInputError',
    message: /verifier/,
  });
  const transport = { auth: { redirectUri: 'http://127.0.0.1:1/callback' } };
  await assert.rejects(Client.connectHttp(`http://127.0.0.1:${port}/mcp`, transport), { name: 'InvalidInputError', message: /authorizer/ });
  assert.throws(() => server.httpHandler({ auth: { resource: 'http://127.0.0.1/mcp' }, verifier: 'nope' }), TypeError);
});

test('every auth setting reaches the core', async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const jwt = { issuer: 'http://127.0.0.1:1/issuer', jwks: { keys: [] }, audience: resource, requiredScopes: ['mcp:read'], leewayMs: 1000, refreshIntervalMs: 1000 };
  const auth = {
    resource,
    authorizationServers: ['http://127.0.0.1:1'],
    requiredScopes: ['mcp:read'],
    scopesSupported: ['mcp:read'],
    methodScopes: { 'tools/list': ['mcp:read'] },
    toolScopes: { whoami: ['mcp:whoami'] },
    resourceName: 'settings',
    leewayMs: 1000,
    jwt,
  };
  const http = await protectedServer().serveHttp({ port, auth });
  const login = {
    redirectUri: 'http://127.0.0.1:1/callback',
    clientName: 'settings',
    clientId: 'pre-registered',
    clientSecret: 'secret',
    clientMetadataUrl: 'https://client.example.com/metadata.json',
    scopes: ['mcp:read'],
    maxStepUps: 1,
    clientCredentials: { clientId: 'machine', clientSecret: 'machine-secret' },
  };
  try {
    // The settings parse, and the machine login fails at the unreachable authorization server.
    await assert.rejects(Client.connectHttp(http.url, { auth: login }), { message: /the token request failed/ });
  } finally {
    await http.close();
  }
});

/** Starts a small OAuth authorization server: metadata, registration, an authorization endpoint that approves at once, and a token endpoint that checks PKCE. */
async function authorizationServer() {
  const state = { issuer: '', codes: new Map(), tokens: new Set(), registrations: 0 };
  const reply = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, state.issuer);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString();
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      reply(res, 200, {
        issuer: state.issuer,
        authorization_endpoint: `${state.issuer}/authorize`,
        token_endpoint: `${state.issuer}/token`,
        registration_endpoint: `${state.issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      });
    } else if (url.pathname === '/register') {
      state.registrations += 1;
      reply(res, 201, { client_id: 'registered', client_secret: 'secret', redirect_uris: JSON.parse(body).redirect_uris });
    } else if (url.pathname === '/authorize') {
      const code = `code-${state.codes.size}`;
      state.codes.set(code, { challenge: url.searchParams.get('code_challenge'), scope: url.searchParams.get('scope') ?? '' });
      const location = new URL(url.searchParams.get('redirect_uri'));
      location.searchParams.set('code', code);
      location.searchParams.set('state', url.searchParams.get('state'));
      reply(res, 302, undefined, { location: location.href });
    } else if (url.pathname === '/token') {
      const form = new URLSearchParams(body);
      const issued = state.codes.get(form.get('code'));
      state.codes.delete(form.get('code'));
      const challenge = createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
      if (issued === undefined || issued.challenge !== challenge) {
        reply(res, 400, { error: 'invalid_grant' });
        return;
      }
      const token = `token-${state.tokens.size}`;
      state.tokens.add(token);
      reply(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: issued.scope });
    } else {
      reply(res, 404, {});
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.issuer = `http://127.0.0.1:${server.address().port}`;
  // Closing ends the clients' kept-alive connections too: close() alone waits for a connection
  // that never sent a request until Node's header time-out, which held one run for minutes.
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  return { state, close };
}

/** Opens the authorization URL like a browser whose user agrees at once; resolves with the redirect. */
function follow(authorizationUrl) {
  return new Promise((resolve, reject) => {
    request(authorizationUrl, (res) => {
      res.resume();
      if (res.statusCode === 302) resolve(res.headers.location);
      else reject(new Error(`the authorization endpoint answered ${res.statusCode}`));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * A small authorization server, and a protected server on a free port trusting its tokens; the
 * login options (`authorizer`, `tokenStore`) of a user who agrees at once, recording the URLs
 * opened in `opened` and the tokens in `stored`.
 */
async function userLogin() {
  const issuer = await authorizationServer();
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const auth = { resource, authorizationServers: [issuer.state.issuer], requiredScopes: ['mcp:read'], scopesSupported: ['mcp:read'] };
  const verify = (token) => (issuer.state.tokens.has(token) ? { subject: 'user-1', scopes: ['mcp:read'] } : null);
  const http = await protectedServer().serveHttp({ port, auth, verifier: verify });
  const opened = [];
  const stored = new Map();
  const login = {
    authorizer: async (url) => {
      opened.push(url);
      return follow(url);
    },
    tokenStore: { load: async (key) => stored.get(key), save: (key, tokens) => void stored.set(key, tokens) },
  };
  return { issuer, resource, http, opened, stored, login };
}

test('a client logs in through its authorizer and keeps its tokens in its store', async () => {
  const { issuer, resource, http, opened, stored, login } = await userLogin();
  const options = login;
  const transport = { auth: { redirectUri: 'http://127.0.0.1:1/callback', clientName: 'auth-test' } };
  try {
    const client = await Client.connectHttp(http.url, transport, options);
    assert.equal((await client.callTool('whoami', {})).content[0].text, 'user-1 mcp:read');
    await client.close();
    assert.equal(opened.length, 1);
    const asked = new URL(opened[0]).searchParams;
    assert.equal(asked.get('resource'), resource);
    assert.equal(asked.get('client_id'), 'registered');
    assert.equal(issuer.state.registrations, 1);
    assert.ok(issuer.state.tokens.has(stored.get(resource).accessToken));

    // A later run finds the tokens in the store and never asks the user again.
    const again = await Client.connectHttp(http.url, transport, options);
    assert.equal((await again.callTool('whoami', {})).content[0].text, 'user-1 mcp:read');
    await again.close();
    assert.equal(opened.length, 1);
  } finally {
    await http.close();
    await issuer.close();
  }
});

test('a host logs in to its oauth servers through its authorizer and keeps their tokens', async () => {
  const { issuer, resource, http, opened, stored, login } = await userLogin();
  const config = { mcpServers: { notes: { type: 'http', url: resource, oauth: { scopes: 'mcp:read' } } } };
  const options = { ...login, redirectUri: 'http://127.0.0.1:1/callback' };
  try {
    const host = await Host.connect(config, options);
    assert.deepEqual(host.state('notes'), { state: 'ready' });
    assert.equal((await host.callTool('notes__whoami', {})).content[0].text, 'user-1 mcp:read');
    await host.close();
    assert.equal(opened.length, 1);
    assert.ok(issuer.state.tokens.has(stored.get(resource).accessToken));

    // A second host finds the tokens in the store and never asks the user again.
    const again = await Host.connect(config, options);
    assert.equal((await again.callTool('notes__whoami', {})).content[0].text, 'user-1 mcp:read');
    await again.close();
    assert.equal(opened.length, 1);

    const { redirectUri: _, ...withoutRedirect } = options;
    await assert.rejects(Host.connect(config, withoutRedirect), { name: 'InvalidInputError', message: /redirectUri/ });
  } finally {
    await http.close();
    await issuer.close();
  }
});
