// The CPU an HTTP echo server spends per call, by thread: the Node package's JavaScript thread
// apart from the core's threads.
//
//   node thread_cpu.mjs PORT SESSIONS CALLS BYTES -- COMMAND... ({port} in COMMAND is PORT)
//
// Spawns the server, opens SESSIONS sessions (each on its own keep-alive connection), makes
// `tools/call echo` requests with a text of BYTES bytes (the benchmark's text), sequentially in
// each session and all sessions at once: a warm-up, then CALLS calls. Prints the calls per
// second and the server's CPU time per call (user and system, from /proc/PID/task) of its main
// thread (`main`; Node's JavaScript thread) and of its other threads by name (digits dropped).
// The client writes prepared requests on raw sockets, so that it costs the machine little
// beside the server. `PERF=1` records the server with `perf record` into perf.data meanwhile.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';

const [port, sessions, calls, bytes] = process.argv.slice(2, 6).map(Number);
const command = process.argv.slice(process.argv.indexOf('--') + 1).map((arg) => arg.replace('{port}', port));
const server = spawn(command[0], command.slice(1), { stdio: 'ignore' });

/** A keep-alive connection that sends one request at a time and resolves with its reply. */
function connection() {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let received = Buffer.alloc(0);
  let waiting;
  socket.on('error', (error) => waiting?.reject(error));
  socket.on('data', (chunk) => {
    received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = received.subarray(0, end).toString('latin1');
    const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
    if (Number.isNaN(length)) throw new Error(`a reply without content-length: ${head}`);
    if (received.length < end + 4 + length) return;
    const reply = { head, body: received.subarray(end + 4, end + 4 + length) };
    received = received.subarray(end + 4 + length);
    const { resolve } = waiting;
    waiting = undefined;
    resolve(reply);
  });
  return (request) =>
    new Promise((resolve, reject) => {
      waiting = { resolve, reject };
      socket.write(request);
    });
}

function request(message, session) {
  const body = Buffer.from(JSON.stringify(message));
  const head =
    `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
    'accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n' +
    (session === undefined ? '' : `mcp-session-id: ${session}\r\n`) +
    `content-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

const initialize = request({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'thread-cpu', version: '1' } },
});

/** Opens a session and returns its connection's sender of echo calls. */
async function open() {
  let send;
  for (;;) {
    try {
      send = connection();
      const reply = await send(initialize);
      const session = /mcp-session-id: *(\S+)/i.exec(reply.head)[1];
      await send(request({ jsonrpc: '2.0', method: 'notifications/initialized' }, session));
      const text = bytes <= 2 ? 'hi' : '0123456789abcdef'.repeat(Math.ceil(bytes / 16)).slice(0, bytes);
      const call = request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, session);
      return async () => {
        const { head, body } = await send(call);
        if (!head.startsWith('HTTP/1.1 200') || body.length < text.length) throw new Error(`echo failed: ${head}`);
      };
    } catch (error) {
      if (error.code !== 'ECONNREFUSED') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The CPU µs of each of the server's threads so far, the main one as `main`. */
function cpu() {
  const times = {};
  for (const tid of readdirSync(`/proc/${server.pid}/task`)) {
    let stat;
    try {
      stat = readFileSync(`/proc/${server.pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = Number(tid) === server.pid ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times[name] = (times[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10_000;
  }
  return times;
}

const senders = [await open()];
for (let i = 1; i < sessions; i++) senders.push(await open());
async function run(count) {
  let left = count;
  await Promise.all(
    senders.map(async (send) => {
      while (left-- > 0) await send();
    }),
  );
}

await run(Math.min(calls, 2000));
let perf;
if (process.env.PERF) {
  perf = spawn('perf', ['record', '-F', '1999', '-p', String(server.pid), '-o', 'perf.data'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
}
const before = cpu();
const start = process.hrtime.bigint();
await run(calls);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const after = cpu();
if (perf !== undefined) {
  perf.kill('SIGINT');
  await new Promise((resolve) => perf.on('exit', resolve));
}
server.kill('SIGKILL');
const perCall = Object.fromEntries(Object.keys(after).map((name) => [name, +((after[name] - (before[name] ?? 0)) / calls).toFixed(1)]));
perCall.total = +Object.values(perCall).reduce((sum, us) => sum + us, 0).toFixed(1);
console.log(JSON.stringify({ sessions, bytes, calls, callsPerSecond: Math.round(calls / seconds), cpuPerCall: perCall }));
process.exit(0);
