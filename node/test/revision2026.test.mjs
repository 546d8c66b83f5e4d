// Revision 2026-07-28 through the bridge: a handler that asks with ctx.ask works for clients of
// both revisions (2025-11-25 gets server-to-client requests, 2026-07-28 gets input_required
// results and retries), and the Node client speaks either.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CapabilityMissingError, Client, ConfigError, InvalidInputError, ProtocolError, Server } from '../index.mjs';
import { roundsServer } from './fixtures/rounds.mjs';
import { connect, waitFor } from './helpers.mjs';

const NEXT = '2026-07-28';
const ROUNDS = fileURLToPath(new URL('./fixtures/rounds.mjs', import.meta.url));

/** Client callbacks that answer every request for input, recording the questions. */
function answering(asked) {
  return {
    elicitation: (params) => {
      asked.push(params.message);
      const property = Object.keys(params.requestedSchema.properties)[0];
      const content = { n: 2, day: 'May 1', name: 'Ada' };
      return { action: 'accept', content: { [property]: content[property] } };
    },
    sampling: () => {
      asked.push('sample');
      return { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'test-model' };
    },
    roots: () => {
      asked.push('roots');
      return [{ uri: 'file:///work' }];
    },
  };
}

test('a 2026-07-28 client answers a handler through input rounds, the state kept between them', async () => {
  const runs = {};
  const asked = [];
  const client = await connect(roundsServer(runs), { protocolVersion: NEXT, ...answering(asked) });
  assert.equal(client.protocolVersion, NEXT);
  const result = await client.callTool('book', {});
  assert.equal(result.content[0].text, `2 guests on May 1 (${NEXT})`);
  // Three runs: one per round, and the guests asked once since the state carried them.
  assert.equal(runs.book, 3);
  assert.deepEqual(asked, ['How many guests?', 'Which day?']);
  await client.close();
});

test('a 2025-11-25 client gets the same handler\'s requests for input as requests, in one run', async () => {
  const runs = {};
  const asked = [];
  const client = await connect(roundsServer(runs), answering(asked));
  assert.equal(client.protocolVersion, '2025-11-25');
  const result = await client.callTool('book', {});
  assert.equal(result.content[0].text, '2 guests on May 1 (2025-11-25)');
  assert.equal(runs.book, 1);
  assert.deepEqual(asked, ['How many guests?', 'Which day?']);
  await client.close();
});

test('requests for input made together share one round', async () => {
  for (const protocolVersion of [NEXT, '2025-11-25']) {
    const runs = {};
    const asked = [];
    const client = await connect(roundsServer(runs), { protocolVersion, ...answering(asked) });
    const result = await client.callTool('all', {});
    assert.equal(result.content[0].text, 'Hello, Ada: file:///work');
    assert.equal(runs.all, protocolVersion === NEXT ? 2 : 1, protocolVersion);
    assert.deepEqual([...asked].sort(), ['Your name?', 'roots', 'sample'], protocolVersion);
    await client.close();
  }
});

test('a 2026-07-28 client speaks the revision over Streamable HTTP', async () => {
  const http = await roundsServer().serveHttp({ host: '127.0.0.1', port: 0 });
  try {
    const client = await Client.connectHttp(http.url, {}, { protocolVersion: NEXT, ...answering([]) });
    assert.equal(client.protocolVersion, NEXT);
    const result = await client.callTool('book', {});
    assert.equal(result.content[0].text, `2 guests on May 1 (${NEXT})`);
    await client.close();
  } finally {
    await http.close();
  }
});

/** A Node server over stdio, spoken to line by line. */
class StdioPeer {
  #lines;

  constructor(script) {
    this.child = spawn(process.execPath, [script, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.#lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
    this.next = 1;
  }

  /** Sends a 2026-07-28 `tools/call` (no `initialize`: the revision has none) and returns its answer. */
  async call(params) {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': NEXT,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    const id = this.next++;
    const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: meta } };
    this.child.stdin.write(`${JSON.stringify(request)}\n`);
    const { value, done } = await this.#lines.next();
    assert.equal(done, false, 'the server closed its output');
    const answer = JSON.parse(value);
    assert.equal(answer.id, id);
    return answer;
  }

  close() {
    this.child.stdin.end();
    return new Promise((resolve) => this.child.once('exit', resolve));
  }
}

test('on the wire: input_required results, a sealed requestState, and a tampered or replayed one refused', async () => {
  const peer = new StdioPeer(ROUNDS);
  try {
    const book = { name: 'book', arguments: {} };
    const first = (await peer.call(book)).result;
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests), ['guests']);
    assert.equal(first.inputRequests.guests.method, 'elicitation/create');
    assert.equal(typeof first.requestState, 'string');

    const guests = { guests: { action: 'accept', content: { n: 4 } } };
    const second = (await peer.call({ ...book, inputResponses: guests, requestState: first.requestState })).result;
    assert.equal(second.resultType, 'input_required');
    assert.deepEqual(Object.keys(second.inputRequests), ['date'], 'the guests come from the state');

    const date = { date: { action: 'accept', content: { day: 'June 2' } } };
    const done = (await peer.call({ ...book, inputResponses: date, requestState: second.requestState })).result;
    assert.equal(done.resultType, 'complete');
    assert.equal(done.content[0].text, `4 guests on June 2 (${NEXT})`);

    // The state is sealed: the client cannot read it, and changing one character is refused.
    const sealed = Buffer.from(second.requestState, 'base64url').toString('latin1');
    assert.ok(!sealed.includes('guests'), 'the handler state is readable');
    const at = second.requestState.length >> 1;
    const flipped = `${second.requestState.slice(0, at)}${second.requestState[at] === 'A' ? 'B' : 'A'}${second.requestState.slice(at + 1)}`;
    const tampered = await peer.call({ ...book, inputResponses: date, requestState: flipped });
    assert.equal(tampered.error?.code, -32602, JSON.stringify(tampered));
    // Nor does it serve another request: other arguments make another request.
    const elsewhere = { name: 'book', arguments: { party: 'other' }, inputResponses: date, requestState: second.requestState };
    const replayed = await peer.call(elsewhere);
    assert.equal(replayed.error?.code, -32602, JSON.stringify(replayed));
    assert.match(replayed.error.message, /another request/);
  } finally {
    await peer.close();
  }
});

const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nRead references/FORMS.md first.\n';

test('a skill is listed with its files, which are served as resources', async () => {
  const server = new Server({ name: 'skills', version: '1.0.0' });
  server.addSkill(SKILL_MD, { 'references/FORMS.md': 'Forms have fields.\n' });
  const client = await connect(server, { protocolVersion: NEXT });
  try {
    assert.ok(client.serverCapabilities.extensions['io.modelcontextprotocol/skills']);
    const { skills } = await client.request('skills/list');
    assert.equal(skills.length, 1);
    assert.equal(skills[0].uri, 'skill://pdf-processing/SKILL.md');
    assert.deepEqual(
      skills[0].resources.map((r) => r.uri),
      ['skill://pdf-processing/SKILL.md', 'skill://pdf-processing/references/FORMS.md'],
    );
    const read = await client.readResource('skill://pdf-processing/references/FORMS.md');
    assert.equal(read.contents[0].text, 'Forms have fields.\n');
  } finally {
    await client.close();
  }
  assert.throws(() => server.addSkill(SKILL_MD.replace('pdf-processing', 'PDF--x')), ConfigError);
  assert.throws(() => server.addSkill(SKILL_MD, { '../up.md': 'x' }), ConfigError);
});

test('the client lists, loads and reads skills, each file checked against its entry', async () => {
  const server = new Server({ name: 'skills', version: '1.0.0' });
  server.addSkill(SKILL_MD, { 'references/FORMS.md': 'Forms have fields.\n' });
  const client = await connect(server, { protocolVersion: NEXT });
  try {
    const [entry, ...others] = await client.listSkills();
    assert.equal(others.length, 0);
    assert.equal(entry.uri, 'skill://pdf-processing/SKILL.md');
    const skill = await client.loadSkill(entry);
    assert.equal(skill.frontmatter.name, 'pdf-processing');
    assert.equal(skill.frontmatter.description, 'Extract PDF text');
    assert.match(skill.body, /Read references\/FORMS.md first/);
    const file = await client.readSkillFile(entry, 'skill://pdf-processing/references/FORMS.md');
    assert.ok(Buffer.isBuffer(file));
    assert.equal(file.toString('utf8'), 'Forms have fields.\n');
    // A file the entry does not list, and an entry whose digest does not match, are refused.
    await assert.rejects(client.readSkillFile(entry, 'skill://pdf-processing/other.md'), ProtocolError);
    const forged = { ...entry, resources: entry.resources.map((r) => ({ ...r, digest: `sha256:${'0'.repeat(64)}` })) };
    await assert.rejects(client.readSkillFile(forged, 'skill://pdf-processing/references/FORMS.md'), ProtocolError);
    await assert.rejects(client.loadSkill({ uri: 42 }), InvalidInputError);
  } finally {
    await client.close();
  }
  const plain = await connect(new Server({ name: 'plain', version: '1' }));
  await assert.rejects(plain.listSkills(), CapabilityMissingError);
  await plain.close();
});

/** A server with a tool, a prompt and a resource whose lists change. */
function watchedServer() {
  const server = new Server({ name: 'watched', version: '1' });
  server.registerTool('first', {}, () => 'first');
  server.registerTool('kept', {}, () => 'kept');
  server.registerResource('note', 'mem://note', {}, () => 'hi');
  return server;
}

test('listen yields the notifications of its stream and closes it when the loop is left', async () => {
  const server = watchedServer();
  const client = await connect(server, { protocolVersion: NEXT });
  try {
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['mem://note'] });
    // Prompts are not offered: the acknowledgment leaves them out.
    assert.deepEqual(subscription.acknowledged, { toolsListChanged: true, resourceSubscriptions: ['mem://note'] });
    const events = [];
    client.on('resourceUpdated', (params) => events.push(params.uri));
    server.notifyResourceUpdated('mem://note');
    const heard = [];
    for await (const notification of subscription) {
      heard.push(notification);
      if (heard.length === 1) server.registerTool('second', {}, () => 'second');
      else break;
    }
    assert.equal(heard[0].method, 'notifications/resources/updated');
    assert.equal(heard[0].params.uri, 'mem://note');
    assert.equal(heard[1].method, 'notifications/tools/list_changed');
    // The notifications are events of the client as well.
    await waitFor(() => events.length === 1);
    assert.deepEqual(events, ['mem://note']);
    // Leaving the loop closed the stream: the next update is not heard, and the iteration is over.
    server.notifyResourceUpdated('mem://note');
    await client.ping();
    assert.deepEqual(await subscription.next(), { value: undefined, done: true });
    assert.deepEqual(events, ['mem://note']);
  } finally {
    await client.close();
  }
});

test('a subscription ends with its connection, and an older server has none', async () => {
  const server = watchedServer();
  const client = await connect(server, { protocolVersion: NEXT });
  const subscription = await client.listen({ resourceSubscriptions: ['mem://note'] });
  const waiting = subscription.next();
  await client.close();
  assert.deepEqual(await waiting, { value: undefined, done: true });
  await subscription.close();

  const older = await connect(server);
  await assert.rejects(older.listen({ toolsListChanged: true }), CapabilityMissingError);
  await assert.rejects(older.listen({ toolsListChanged: 'yes' }), InvalidInputError);
  await older.close();
});
