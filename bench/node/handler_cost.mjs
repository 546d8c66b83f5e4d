// What the benchmark's echo handler costs in JavaScript alone, without a server around it.
//
//   node handler_cost.mjs [CALLS]
//
// Prints the CPU time per call (user and system, process.cpuUsage, garbage collection
// included) of: the handler `({ text }) => text` called in a loop with one 64 KiB argument
// object; the same handler through the package's trampoline (its Context, the checks of the
// result), settling into a native stand-in that does nothing; making a fresh 64 KiB string
// from bytes and dropping it, as each call's argument is made and collected; copying the
// result's characters out of V8 into bytes; and for comparison what a server written in
// JavaScript pays to read the argument from JSON text and write the result back
// (`JSON.parse`, `JSON.stringify`). The text is the benchmark's.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { trampoline } = require('../../node/lib/call.cjs');

const calls = Number(process.argv[2] ?? 20_000);
const bytes = Buffer.from('0123456789abcdef'.repeat(4 * 1024), 'latin1');
const text = bytes.toString('latin1');
const args = { text };
const handler = ({ text }) => text;

/** Runs `body(i)` `calls` times after a warm-up and returns the CPU µs per call. */
function measure(body) {
  for (let i = 0; i < 1000; i++) body(i);
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) body(i);
  const { user, system } = process.cpuUsage(start);
  return (user + system) / calls;
}

let sink = 0;
const rows = [];
rows.push(['the handler, called with the same argument object', measure(() => (sink ^= handler(args).length))]);

const stub = {
  resolveText: (value) => (sink ^= value.length),
  resolve: (json) => (sink ^= json.length),
  reject: () => (sink ^= 1),
};
const run = (payload, ctx) => handler(payload, { ctx });
const bounce = trampoline(run);
rows.push(['the handler through the trampoline, a no-op native', measure(() => bounce([args], [stub]))]);

rows.push(['a fresh 64 KiB string made from bytes, collected', measure(() => (sink ^= bytes.toString('latin1').length))]);
rows.push([
  'the handler through the trampoline, a fresh argument',
  measure(() => bounce([{ text: bytes.toString('latin1') }], [stub])),
]);
rows.push(['the result copied out of V8 into bytes', measure(() => (sink ^= Buffer.from(text, 'latin1').length))]);

const json = JSON.stringify(args);
rows.push(['JSON.parse of the argument (a JavaScript server)', measure(() => (sink ^= JSON.parse(json).text.length))]);
rows.push(['JSON.stringify of the result (a JavaScript server)', measure(() => (sink ^= JSON.stringify(text).length))]);

for (const [what, us] of rows) console.log(`${us.toFixed(2).padStart(9)} µs  ${what}`);
if (sink === 0.5) console.log(sink);
