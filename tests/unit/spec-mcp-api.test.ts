import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderMcpApi } from '../../src/server/mcp-api-doc';
import { everyBuiltinTool } from '../../src/server/builtin-tools';

describe('spec/mcp-api.md', () => {
  it('is up to date with the tool registry (run `npm run docs:api` when this fails)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '../../spec/mcp-api.md'), 'utf8');
    expect(committed).toBe(renderMcpApi(everyBuiltinTool()));
  });

  it('documents every built-in tool', () => {
    const doc = renderMcpApi(everyBuiltinTool());
    for (const t of everyBuiltinTool()) expect(doc).toContain(`### ${t.name}`);
  });
});
