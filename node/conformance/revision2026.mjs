// The tools and prompt of suite 0.2.0-alpha.12's revision 2026-07-28 scenarios: requests for
// input across rounds, the stateless checks, the tasks extension, subscriptions/listen and
// custom headers, with the names and payloads of the Rust fixture
// (tests/conformance/rust/src/fixture.rs and tasks.rs).

import { McpError } from '../index.mjs';

// Longer than the server's immediate window (100 ms): a call that waits this long before asking
// for input or answering becomes a task.
const PAST_THE_WINDOW = 300;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });

/** The form a scenario asks its question with. */
const form = (message, property, type) => ({
  message,
  requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] },
});

const sampling = (prompt, maxTokens) => ({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens });

const askName = (ctx) => ctx.ask('user_name', 'elicitation/create', form('What is your name?', 'name', 'string'));

const greeting = (answer) => text(`Hello, ${answer?.content?.name ?? 'stranger'}!`);

/**
 * Awaits every request for input (so that all of them join one round), then throws the first
 * failure, if any.
 */
async function gatherAll(asks) {
  const settled = await Promise.allSettled(asks);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((outcome) => outcome.value);
}

const noArguments = (description, extra = {}) => ({ description, inputSchema: { type: 'object', properties: {} }, ...extra });
const taskSupport = (support) => ({ execution: { taskSupport: support } });
const clamp = (value, low, high) => Math.min(Math.max(value, low), high);

/** Adds the 2026-07-28 registrations to the fixture `server` (made with `tasks: true`). */
export function register(server) {
  const tool = (name, config, handler) => server.registerTool(name, config, handler);

  // The skill the skills scenarios (SEP-2640) find: a SKILL.md and one reference file.
  server.addSkill(
    '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n' +
      'Read references/FORMS.md before filling a form.\n',
    { 'references/FORMS.md': 'Forms have fields; fill each one.\n' },
  );

  tool('test_input_required_result_elicitation', noArguments("Asks for the user's name."), async (_args, ctx) =>
    greeting(await askName(ctx)),
  );
  tool('test_input_required_result_tampered_state', noArguments('Asks for confirmation.'), async (_args, ctx) => {
    ctx.setState({ asked: true });
    await ctx.ask('confirm', 'elicitation/create', form('Please confirm', 'ok', 'boolean'));
    return text('confirmed');
  });
  tool('test_input_required_result_sampling', noArguments('Asks the model a question.'), async (_args, ctx) => {
    const answer = await ctx.ask('capital_question', 'sampling/createMessage', sampling('What is the capital of France?', 100));
    return text(answer?.content?.text ?? '');
  });
  tool('test_input_required_result_list_roots', noArguments("Asks for the client's roots."), async (_args, ctx) => {
    const answer = await ctx.ask('client_roots', 'roots/list');
    return text(`Roots: ${(answer.roots ?? []).map((root) => root.uri ?? '').join(', ')}`);
  });
  tool('test_input_required_result_request_state', noArguments('Asks for confirmation, keeping state.'), async (_args, ctx) => {
    const resumed = ctx.state?.step === 'confirm';
    ctx.setState({ step: 'confirm' });
    await ctx.ask('confirm', 'elicitation/create', form('Please confirm', 'ok', 'boolean'));
    return text(resumed ? 'state-ok: confirmed' : 'confirmed without state');
  });
  tool('test_input_required_result_multiple_inputs', noArguments('Asks for three inputs at once.'), async (_args, ctx) => {
    ctx.setState({ step: 'all' });
    const [name] = await gatherAll([
      askName(ctx),
      ctx.ask('greeting', 'sampling/createMessage', sampling('Generate a greeting', 50)),
      ctx.ask('client_roots', 'roots/list'),
    ]);
    return text(`All inputs received for ${name?.content?.name ?? 'someone'}`);
  });
  tool('test_input_required_result_multi_round', noArguments('Asks two questions, one round each.'), async (_args, ctx) => {
    // The first answer is kept in the state, since the client sends only the latest.
    let name = ctx.state?.name;
    if (name === undefined) {
      const answer = await ctx.ask('step1', 'elicitation/create', form('Step 1: What is your name?', 'name', 'string'));
      name = answer?.content?.name ?? 'someone';
    }
    ctx.setState({ name });
    const color = await ctx.ask('step2', 'elicitation/create', form('Step 2: What is your favorite color?', 'color', 'string'));
    return text(`${name} likes ${color?.content?.color ?? 'no color'}`);
  });
  tool('test_input_required_result_capabilities', noArguments('Asks only for what the client can give.'), async (_args, ctx) => {
    const caps = ctx.clientCapabilities;
    const asks = [];
    if (caps.sampling !== undefined) asks.push(ctx.ask('question', 'sampling/createMessage', sampling('Say hello', 20)));
    if (caps.elicitation !== undefined) asks.push(askName(ctx));
    if (caps.roots !== undefined) asks.push(ctx.ask('client_roots', 'roots/list'));
    await gatherAll(asks);
    return text('asked only for what the client declared');
  });
  tool('test_missing_capability', noArguments('Needs sampling, which the client must declare.'), async (_args, ctx) => {
    await ctx.ask('question', 'sampling/createMessage', sampling('Say hello', 20));
    return text('sampled');
  });
  tool('test_streaming_elicitation', noArguments("Asks for the user's name while it streams."), async (_args, ctx) => {
    ctx.progress(0, 1);
    return greeting(await askName(ctx));
  });
  tool('test_logging_tool', noArguments('Logs, for the clients that asked for logs.'), (_args, ctx) => {
    ctx.log('info', 'a log message', 'fixture');
    return text('logged');
  });
  server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks for its context.' }, async (_args, ctx) => {
    const answer = await ctx.ask('user_context', 'elicitation/create', form('What context should the prompt use?', 'context', 'string'));
    return `Use this context: ${answer?.content?.context ?? ''}`;
  });

  tool(
    'greet',
    { description: 'Greets someone by name.', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    ({ name = 'stranger' }) => text(`Hello, ${name}!`),
  );
  tool(
    'slow_compute',
    {
      description: 'Sleeps for the given seconds, then answers.',
      inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
      ...taskSupport('optional'),
    },
    async ({ seconds = 1, label = 'computation' }) => {
      const bounded = clamp(seconds, 0, 600);
      await sleep(bounded * 1000);
      return text(`${label}: done after ${bounded} s`);
    },
  );
  tool('failing_job', noArguments('Fails with a tool error after a second.', taskSupport('required')), async () => {
    await sleep(1000);
    return { content: [{ type: 'text', text: 'the job failed' }], isError: true };
  });
  tool('protocol_error_job', noArguments('Fails with a protocol error.', taskSupport('optional')), async () => {
    await sleep(PAST_THE_WINDOW);
    throw new McpError(-32603, 'the job broke down');
  });
  tool(
    'confirm_delete',
    {
      description: 'Asks for confirmation, then deletes a file.',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
      ...taskSupport('optional'),
    },
    async ({ filename = 'the file' }, ctx) => {
      await sleep(PAST_THE_WINDOW);
      const answer = await ctx.ask('confirm', 'elicitation/create', form(`Delete ${filename}?`, 'confirm', 'boolean'));
      const accepted = answer.action === 'accept' && answer.content?.confirm !== false;
      return text(accepted ? `Deleted ${filename}` : 'Kept');
    },
  );
  tool('multi_input', noArguments('Asks two questions at once.', taskSupport('optional')), async (_args, ctx) => {
    await sleep(PAST_THE_WINDOW);
    const [first, second] = await gatherAll([
      ctx.ask('first', 'elicitation/create', form('First name?', 'name', 'string')),
      ctx.ask('second', 'elicitation/create', form('Second name?', 'name', 'string')),
    ]);
    return text(`${first?.content?.name ?? '?'} and ${second?.content?.name ?? '?'}`);
  });
  tool(
    'test_tool_with_task',
    noArguments("Asks for the user's name, then greets them from a task.", taskSupport('required')),
    async (_args, ctx) => {
      const answer = await askName(ctx);
      await sleep(PAST_THE_WINDOW);
      return greeting(answer);
    },
  );
  tool(
    'test_header_param',
    {
      description: 'Echoes a region that is mirrored into the Mcp-Param-Region header.',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    },
    ({ region = 'nowhere' }) => text(`region: ${region}`),
  );
  tool('test_trigger_tool_change', noArguments('Adds or removes a tool.'), () => {
    if (!server.removeTool('dynamic_tool')) {
      server.registerTool('dynamic_tool', noArguments('Appears and disappears.'), () => text('dynamic'));
    }
    return text('the tool list changed');
  });
  tool('test_trigger_prompt_change', noArguments('Adds or removes a prompt.'), () => {
    if (!server.removePrompt('dynamic_prompt')) {
      server.registerPrompt('dynamic_prompt', { description: 'Appears and disappears.' }, () => 'dynamic');
    }
    return text('the prompt list changed');
  });
}
