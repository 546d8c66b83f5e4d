'use strict';
// Loads the native addon that scripts/build.mjs builds from bindings/node.

const { join } = require('node:path');

const file = join(__dirname, '..', 'mcpweft.node');
try {
  module.exports = require(file);
} catch (error) {
  throw new Error(
    `mcpweft: the native addon ${file} could not be loaded; build it with \`npm run build\` in the package folder (a Rust toolchain is needed)`,
    { cause: error },
  );
}
