// The types of the ES module entry point: the same as the CommonJS one's.
export * from './index.js';
declare const mcpweft: typeof import('./index.js');
export default mcpweft;
