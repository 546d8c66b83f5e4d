'use strict';
// Summarizes checks.json files written by the conformance CLI, for run.sh.
//
//   node checks.cjs FILE
//   node checks.cjs --each FILE...
//
// Prints the counts `SUCCESS FAILURE WARNING TOTAL` (TOTAL counts INFO checks too) on the first line, then one line per FAILURE or
// WARNING check: `STATUS name: message`, where the message is the check's errorMessage (or its
// description) followed by its details, shortened. Exits 1 when the file is missing or not a
// JSON array of checks. With --each, summarizes every FILE in one run (a server suite's scenarios
// cost one start of Node, not one each): each summary follows a line `== FILE`, and a file that
// cannot be read has no summary (its error goes to stderr); exits 0.

const fs = require('node:fs');

const MAX_DETAILS = 600;

function oneLine(value) {
  return String(value).replace(/\s+/g, ' ').trim();
}

function main(file) {
  let checks;
  try {
    checks = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`cannot read ${file}: ${e.message}`);
    return 1;
  }
  if (!Array.isArray(checks)) {
    console.error(`${file} is not an array of checks`);
    return 1;
  }
  const count = (status) => checks.filter((c) => c && c.status === status).length;
  console.log(`${count('SUCCESS')} ${count('FAILURE')} ${count('WARNING')} ${checks.length}`);
  for (const check of checks) {
    if (!check || (check.status !== 'FAILURE' && check.status !== 'WARNING')) {
      continue;
    }
    let line = `${check.status} ${check.name || check.id}: ${oneLine(check.errorMessage || check.description || '')}`;
    if (check.details !== undefined) {
      let details = oneLine(JSON.stringify(check.details));
      if (details.length > MAX_DETAILS) {
        details = `${details.slice(0, MAX_DETAILS)}…`;
      }
      line += ` | details: ${details}`;
    }
    console.log(line);
  }
  return 0;
}

if (process.argv[2] === '--each') {
  for (const file of process.argv.slice(3)) {
    console.log(`== ${file}`);
    main(file);
  }
} else {
  process.exitCode = main(process.argv[2]);
}
