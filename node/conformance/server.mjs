// The conformance fixture server, written with mcpweft's Node API.
//
// Exposes exactly what the official MCP conformance suite's server scenarios call, with the
// names and payloads of the Rust reference fixture (tests/conformance/rust/src/fixture.rs).
//
//   server.mjs PORT      serves Streamable HTTP at http://127.0.0.1:PORT/mcp until killed
//   server.mjs --stdio   serves one session over stdin and stdout

import { ResourceTemplate, Server, version } from '../index.mjs';
import { register } from './revision2026.mjs';

// A 1x1 PNG image, base64-encoded.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
// A WAV file of eight silent 16-bit samples at 8 kHz, base64-encoded.
const WAV_BASE64 = 'UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA';
// The pause between the steps of the logging and progress tools, in milliseconds.
const STEP_DELAY = 50;
const RECONNECTION_TEXT = 'Reconnection test completed';
// Values offered by completion/complete, filtered by the prefix the client typed.
const COMPLETIONS = ['testValue1', 'testValue2', 'test-data', 'example'];

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
};

const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Untitled single-select enum', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select enum',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled enum',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multi-select enum',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select enum',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
};

const ELICITATION_SCHEMA = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const error = (value) => ({ content: [{ type: 'text', text: value }], isError: true });
const image = () => ({ type: 'image', data: PNG_BASE64, mimeType: 'image/png' });
const embedded = (uri, mimeType, value) => ({ type: 'resource', resource: { uri, mimeType, text: value } });
const noArguments = (description) => ({ description, inputSchema: { type: 'object', properties: {} } });
const stringArgument = (description, name, about) => ({
  description,
  inputSchema: { type: 'object', properties: { [name]: { type: 'string', description: about } }, required: [name] },
});

/** Sends a form elicitation and reports the answer as `<prefix>: action=…, content=…`. */
async function elicit(ctx, message, requestedSchema, prefix) {
  try {
    const result = await ctx.elicit({ message, requestedSchema });
    return text(`${prefix}: action=${result.action ?? ''}, content=${JSON.stringify(result.content ?? null)}`);
  } catch (failure) {
    return error(`Elicitation failed: ${failure.message}`);
  }
}

/** Builds the complete conformance fixture server. */
export function fixture() {
  const server = new Server(
    { name: 'mcpweft-conformance-server', version },
    { instructions: 'The mcpweft fixture for the official MCP conformance suite.', tasks: true },
  );
  register(server);
  const tool = (name, config, handler) => server.registerTool(name, config, handler);

  tool('test_simple_text', noArguments('Returns a simple text response.'), () =>
    text('This is a simple text response for testing.'),
  );
  tool('test_image_content', noArguments('Returns a 1x1 PNG image.'), () => ({ content: [image()] }));
  tool('test_audio_content', noArguments('Returns a short WAV clip.'), () => ({
    content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
  }));
  tool('test_embedded_resource', noArguments('Returns an embedded text resource.'), () => ({
    content: [embedded('test://embedded-resource', 'text/plain', 'This is an embedded resource content.')],
  }));
  tool('test_multiple_content_types', noArguments('Returns text, an image and an embedded resource.'), () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      image(),
      embedded('test://mixed-content-resource', 'application/json', JSON.stringify({ test: 'data', value: 123 })),
    ],
  }));
  tool('test_tool_with_logging', noArguments('Sends three log messages while it runs.'), async (_args, ctx) => {
    const steps = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
    for (const [i, step] of steps.entries()) {
      if (i > 0) await sleep(STEP_DELAY);
      ctx.log('info', step, 'conformance');
    }
    return text('Tool with logging executed successfully');
  });
  tool('test_tool_with_progress', noArguments('Reports progress 0, 50 and 100 of 100 while it runs.'), async (_args, ctx) => {
    for (const [i, progress] of [0, 50, 100].entries()) {
      if (i > 0) await sleep(STEP_DELAY);
      ctx.progress(progress, 100);
    }
    // Leaves the last notification time to arrive before the result.
    await sleep(STEP_DELAY);
    return text('Tool with progress executed successfully');
  });
  tool('test_error_handling', noArguments('Always fails with a tool error.'), () =>
    error('This tool intentionally returns an error for testing'),
  );
  tool(
    'test_sampling',
    stringArgument("Asks the client's model to answer a prompt.", 'prompt', 'The prompt to send to the model'),
    async ({ prompt }, ctx) => {
      try {
        const result = await ctx.sample(prompt, { maxTokens: 100 });
        const blocks = Array.isArray(result.content) ? result.content : [result.content];
        return text(`LLM response: ${blocks.filter((b) => b?.type === 'text').map((b) => b.text).join('')}`);
      } catch (failure) {
        return error(`Sampling failed: ${failure.message}`);
      }
    },
  );
  tool(
    'test_elicitation',
    stringArgument('Asks the user for a username and an e-mail address.', 'message', 'The message to show the user'),
    ({ message }, ctx) => elicit(ctx, message, ELICITATION_SCHEMA, 'User response'),
  );
  tool('test_elicitation_sep1034_defaults', noArguments('Elicits one field of each type, each with a default.'), (_args, ctx) =>
    elicit(ctx, 'Please review and update the form fields with defaults', SEP1034_SCHEMA, 'Elicitation completed'),
  );
  tool('test_elicitation_sep1330_enums', noArguments('Elicits the five enum shapes of SEP-1330.'), (_args, ctx) =>
    elicit(ctx, 'Please select options from the enum fields', SEP1330_SCHEMA, 'Elicitation completed'),
  );
  tool(
    'json_schema_2020_12_tool',
    { description: 'Tool with JSON Schema 2020-12 features', inputSchema: JSON_SCHEMA_2020_12 },
    (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
  tool('test_reconnection', noArguments('Closes its SSE stream, then answers on the resumed stream.'), async (_args, ctx) => {
    ctx.closeSseStream();
    await sleep(100);
    return text(RECONNECTION_TEXT);
  });

  const resource = (name, description, mimeType, read) =>
    server.registerResource(name, `test://${name}`, { description, mimeType }, read);
  resource('static-text', 'A static text resource.', 'text/plain', () => 'This is the content of the static text resource.');
  resource('static-binary', 'A static binary resource (a 1x1 PNG).', 'image/png', () => Buffer.from(PNG_BASE64, 'base64'));
  resource('watched-resource', 'A resource clients can subscribe to.', 'text/plain', () => 'Watched resource content');
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data'),
    { description: 'A resource whose content depends on an id.', mimeType: 'application/json' },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );

  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments.' }, () =>
    'This is a simple prompt for testing.',
  );
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments.',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds a resource.',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => [
      { role: 'user', content: embedded(resourceUri, 'text/plain', 'Embedded resource content for testing.') },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt that includes an image.' }, () => [
    { role: 'user', content: image() },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ]);
  server.setCompletionHandler(({ ref, argument }) => {
    const known = ref.name === 'test_prompt_with_arguments' || ref.uri === 'test://template/{id}/data';
    return known ? COMPLETIONS.filter((value) => value.startsWith(argument.value)) : [];
  });
  return server;
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--stdio') {
  await fixture().serveStdio();
} else if (args.length === 1 && /^\d+$/.test(args[0])) {
  // The pinned suite sends a stale MCP-Protocol-Version header in two scenarios.
  const http = await fixture().serveHttp({
    host: '127.0.0.1',
    port: Number(args[0]),
    path: '/mcp',
    requireNegotiatedVersion: false,
  });
  console.error(`conformance-server: serving ${http.url}`);
} else {
  console.error('usage: server.mjs PORT | server.mjs --stdio');
  process.exit(2);
}
