// The calculator's view: an MCP App (the official Apps SDK's `App`) that, once the host has
// answered `ui/initialize`, asks the host to call the server's `add` tool when its button is
// clicked, and shows the sum. The test bundles it into view.html.
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

const app = new App({ name: 'calculator-view', version: '1.0.0' }, {});
const button = document.getElementById('add');
const result = document.getElementById('result');
const status = document.getElementById('status');

button.addEventListener('click', async () => {
  button.disabled = true;
  status.textContent = 'Calling add…';
  try {
    const called = await app.callServerTool({ name: 'add', arguments: { a: 2, b: 3 } });
    if (called.isError) throw new Error(called.content?.[0]?.text ?? 'add failed');
    result.textContent = String(called.structuredContent.sum);
    status.textContent = `The host ${app.getHostVersion()?.name} called add.`;
  } catch (error) {
    status.textContent = `Error: ${error.message}`;
  } finally {
    button.disabled = false;
  }
});

app.connect(new PostMessageTransport(window.parent, window.parent)).then(
  () => {
    status.textContent = `Connected to ${app.getHostVersion()?.name}.`;
    button.disabled = false;
  },
  (error) => {
    status.textContent = `Error: ${error.message}`;
  },
);
