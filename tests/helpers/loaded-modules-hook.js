// Preloaded into a server under test (`NODE_OPTIONS=--require <this file>`), never by the product. When the server
// writes its first tools/list answer to stdout, it records what the process had loaded by then — every module in
// require.cache and the Node built-ins (process.moduleLoadList) — as JSON in the file named by
// WORKGRAPH_TEST_LOADED_MODULES. tests/e2e/cold-start-modules.test.ts holds a plain stdio serve's cold start to it.
const fs = require('node:fs');

const out = process.env.WORKGRAPH_TEST_LOADED_MODULES;
if (out) {
  const write = process.stdout.write;
  let recorded = false;
  process.stdout.write = function (chunk, ...rest) {
    if (!recorded && String(chunk).includes('"tools":[')) {
      recorded = true;
      const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
      fs.writeFileSync(out, JSON.stringify({ modules: Object.keys(require.cache), builtins }));
    }
    return write.call(this, chunk, ...rest);
  };
}
