// A real authorization server for mcpweft's authorization tests: the npm package oidc-provider,
// on a free loopback port, issuing JWT access tokens for the resource the client names.
//
// It prints its issuer URL on the first line of stdout and serves until stdin closes.
// Users "log in" without a form: the interaction route logs in `alice` and grants the scopes
// asked for, as a user clicking through would. Dynamic registration is open. Two pre-registered
// machine clients get client-credentials tokens: `short-lived` (tokens valid for one second) and
// `machine` (an hour).
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const SCOPES = ['openid', 'offline_access', 'mcp:read', 'mcp:write'];

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'ES256', use: 'sig' };

const http = createServer();
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${http.address().port}`;

const machine = (clientId) => ({
  client_id: clientId,
  client_secret: `${clientId}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: 'mcp:read mcp:write',
});

const provider = new Provider(issuer, {
  clients: [machine('short-lived'), machine('machine')],
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  jwks: { keys: [signingKey] },
  scopes: SCOPES,
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource, client) => ({
        scope: 'mcp:read mcp:write',
        audience: resource,
        accessTokenTTL: client.clientId === 'short-lived' ? 1 : 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});

// Finishes each interaction as a user approving everything asked would.
async function interact(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  let result;
  if (prompt.name === 'login') {
    result = { login: { accountId: 'alice' } };
  } else {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
http.on('request', (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interact(req, res).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  } else {
    callback(req, res);
  }
});

process.stdout.write(`${issuer}\n`);
// Anything else goes to stderr: stdout carries the issuer only.
console.log = console.error;
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
