// The conformance fixture client, written with mcpweft's Node API.
//
// `client.mjs URL` runs the client scenario named in MCP_CONFORMANCE_SCENARIO against the
// suite's mock server at URL over Streamable HTTP, like the Rust fixture client
// (tests/conformance/rust/src/client.rs). Exits 0 when the scenario's job is done; otherwise
// prints why on stderr and exits 1 (2 for a usage error). Gives up after
// MCP_CONFORMANCE_CLIENT_TIMEOUT seconds (default 20), before the suite's own time-out.
//
// An `auth/...` scenario logs in to the protected mock server with the settings of its context
// (MCP_CONFORMANCE_CONTEXT): client credentials for machine clients, a pre-registered client
// when the context names one, and otherwise a user who approves at once.

import { request } from 'node:http';
import { Client, McpweftError } from '../index.mjs';

const SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];

class ScenarioFailed extends Error {}

/** Whether a schema `default` has a form an elicitation answer can take. */
function answerValue(value) {
  if (['string', 'number', 'boolean'].includes(typeof value)) return true;
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** The answer of a user who accepts every proposed value: each property with a `default`. */
function defaultsOf(schema) {
  const properties = schema?.properties;
  if (properties === null || typeof properties !== 'object') return {};
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, property]) => property !== null && typeof property === 'object' && answerValue(property.default))
      .map(([name, property]) => [name, property.default]),
  );
}

/** Accepts a form elicitation with the schema's defaults filled in; declines URL mode. */
function acceptDefaults(params) {
  if (params.mode === 'url') return { action: 'decline' };
  return { action: 'accept', content: defaultsOf(params.requestedSchema) };
}

async function call(client, name, args) {
  const names = (await client.listAll('tools')).map((t) => t.name);
  if (!names.includes(name)) throw new ScenarioFailed(`the server has no tool \`${name}\` (it lists: ${names.join(', ')})`);
  const result = await client.callTool(name, args);
  const texts = result.content.filter((c) => c.type === 'text').map((c) => c.text).join(' ');
  if (result.isError) throw new ScenarioFailed(`tool ${name} reported an error: ${texts}`);
  return `${name} answered: ${texts}`;
}

async function steps(scenario, client) {
  switch (scenario) {
    case 'initialize': {
      const info = client.initializeResult;
      let summary = `initialized with ${info.serverInfo.name} ${info.serverInfo.version} at protocol ${info.protocolVersion}`;
      // The suite's mock server declares no capabilities; only list what it offers.
      if (info.capabilities.tools !== undefined) summary += `; it lists ${(await client.listAll('tools')).length} tool(s)`;
      return summary;
    }
    case 'tools_call':
      return call(client, 'add_numbers', { a: 5, b: 3 });
    case 'elicitation-sep1034-client-defaults':
      return call(client, 'test_client_elicitation_defaults', {});
    case 'sse-retry':
      return call(client, 'test_reconnection', {});
    default:
      throw new ScenarioFailed(`unsupported scenario \`${scenario}\` (supported: ${SCENARIOS.join(', ')})`);
  }
}

/**
 * Approves at once, as the suite's authorization server does: follows the authorization URL
 * without its redirect and resolves with where it points.
 */
function approve(authorizationUrl) {
  return new Promise((resolve, reject) => {
    request(authorizationUrl, (res) => {
      res.resume();
      if (res.headers.location !== undefined) resolve(res.headers.location);
      else reject(new ScenarioFailed(`the authorization endpoint answered ${res.statusCode} without a redirect`));
    })
      .on('error', reject)
      .end();
  });
}

/** The login settings of an `auth/...` scenario, from its context. */
function login(scenario, context) {
  if (scenario.startsWith('auth/client-credentials')) {
    const { client_id: clientId, client_secret: clientSecret, private_key_pem: privateKeyPem, signing_algorithm: algorithm } = context;
    return { clientCredentials: { clientId, clientSecret, privateKeyPem, algorithm } };
  }
  return {
    clientName: 'mcpweft-conformance-client',
    redirectUri: 'http://localhost:3000/callback',
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    clientId: context.client_id,
    clientSecret: context.client_secret,
  };
}

/** Lists the protected server's tools and calls one. */
async function loggedIn(client) {
  const names = (await client.listAll('tools')).map((t) => t.name);
  let summary = `logged in; the server lists ${names.length} tool(s)`;
  const name = names.includes('test-tool') ? 'test-tool' : names[0];
  if (name !== undefined) summary += `; ${await call(client, name, {})}`;
  return summary;
}

async function run(scenario, url) {
  const auth = scenario.startsWith('auth/');
  if (!auth && !SCENARIOS.includes(scenario)) {
    throw new ScenarioFailed(`unsupported scenario \`${scenario}\` (supported: ${SCENARIOS.join(', ')}, auth/...)`);
  }
  const transport = auth ? { auth: login(scenario, JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}')) } : {};
  const options = { name: 'mcpweft-conformance-client', elicitation: acceptDefaults, authorizer: approve };
  const client = await Client.connectHttp(url, transport, options);
  try {
    return await (auth ? loggedIn(client) : steps(scenario, client));
  } finally {
    await client.close();
  }
}

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const args = process.argv.slice(2);
if (args.length !== 1 || scenario === undefined) {
  console.error('client.mjs: usage: MCP_CONFORMANCE_SCENARIO=NAME client.mjs URL');
  process.exit(2);
}
const limit = Number(process.env.MCP_CONFORMANCE_CLIENT_TIMEOUT ?? 20);
if (!Number.isFinite(limit)) {
  console.error('client.mjs: MCP_CONFORMANCE_CLIENT_TIMEOUT is not a number of seconds');
  process.exit(2);
}
const timer = setTimeout(() => {
  console.error(`client.mjs: ${scenario}: gave up after ${limit} s`);
  process.exit(1);
}, limit * 1000);
try {
  const summary = await run(scenario, args[0]);
  console.log(`client.mjs: ${scenario}: ${summary}`);
  clearTimeout(timer);
} catch (failure) {
  const known = failure instanceof ScenarioFailed || failure instanceof McpweftError;
  console.error(`client.mjs: ${scenario}: ${known ? `${failure.name}: ${failure.message}` : failure.stack}`);
  process.exit(1);
}
