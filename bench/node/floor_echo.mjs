// The floor of any Node MCP server over stdio: no library, JSON.parse and JSON.stringify on each
// line of stdin and a hand-written answer to initialize and tools/call. It validates nothing
// and is no server to use; the benchmark prints it beside the real ones so that Node's own
// start-up and per-message cost can be told apart from a package's.
let pending = '';

process.stdin.on('data', (chunk) => {
  pending += chunk;
  let out = '';
  let newline;
  while ((newline = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line.trim() === '') continue;
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    const result =
      message.method === 'initialize'
        ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1.0.0' } }
        : { content: [{ type: 'text', text: message.params.arguments.text }] };
    out += `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`;
  }
  if (out !== '') process.stdout.write(out);
});
process.stdin.setEncoding('utf8');
