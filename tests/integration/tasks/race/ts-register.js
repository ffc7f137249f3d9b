// Lets a plain `node` child process require the TypeScript sources directly: each .ts file is transpiled on load
// with typescript.transpileModule (no type check, no build step, no ts-node). Used by the cross-process race test.
'use strict';
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = function compileTs(module, filename) {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
    },
  });
  module._compile(out.outputText, filename);
};
