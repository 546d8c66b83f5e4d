// The host page: renders a view's HTML in a sandboxed iframe and talks to it through the
// official Apps SDK's AppBridge over postMessage. The test exposes `hostCallTool` (its MCP
// client calls the server) and `hostEvent` (what the bridge saw) from Node, and calls
// `renderApp(html)` with the view it read from the server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const log = (line) => {
  document.getElementById('log').textContent += `${line}\n`;
};

window.renderApp = async (html) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'MCP App view';
  document.getElementById('slot').append(iframe);

  const bridge = new AppBridge(null, { name: 'mcpweft-test-host', version: '1.0.0' }, { serverTools: {} });
  bridge.oninitialized = () => {
    const view = bridge.getAppVersion();
    log(`ui/initialize from ${view?.name}`);
    window.hostEvent('initialized', view);
  };
  bridge.oncalltool = async (params) => {
    log(`tools/call ${params.name} ${JSON.stringify(params.arguments)}`);
    window.hostEvent('tools/call', params);
    // The view's own request ids and progress tokens mean nothing on the host's session.
    const result = await window.hostCallTool({ name: params.name, arguments: params.arguments });
    log(`-> ${JSON.stringify(result.structuredContent)}`);
    return result;
  };
  // The bridge listens before the view loads, so that it hears the view's ui/initialize.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
};
