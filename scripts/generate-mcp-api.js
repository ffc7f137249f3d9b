#!/usr/bin/env node
// Writes spec/mcp-api.md from the built tool registry (run `npm run docs:api`, which builds first).
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const { renderMcpApi } = require('../dist/server/mcp-api-doc');
const { everyBuiltinTool } = require('../dist/server/builtin-tools');

const target = path.join(__dirname, '..', 'spec', 'mcp-api.md');
fs.writeFileSync(target, renderMcpApi(everyBuiltinTool()));
console.error(`wrote ${path.relative(process.cwd(), target)}`);
