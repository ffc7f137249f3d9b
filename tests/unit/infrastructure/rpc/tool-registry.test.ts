import { ToolRegistry } from '../../../../src/kernel/tools/tool-registry';
import type { ToolDefinition } from '../../../../src/kernel/tools/tool-definition';

const tool = (name: string): ToolDefinition => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  annotations: {},
  handler: async () => ({}),
  module: 'graph',
});

describe('ToolRegistry', () => {
  it('refuses a name clash across origins, naming both', () => {
    const r = new ToolRegistry();
    r.register([tool('workflow_list')], 'builtin');
    expect(() => r.replaceOrigin('/g/a.yaml', [tool('workflow_list')])).toThrow(/a\.yaml clashes .* builtin/);
    expect(r.originOf('workflow_list')).toBe('builtin');
  });

  it('replaces an origin atomically and tells listeners', () => {
    const r = new ToolRegistry();
    let changes = 0;
    r.onChange(() => changes++);
    r.replaceOrigin('/g/a.yaml', [tool('a1'), tool('a2')]);
    r.replaceOrigin('/g/a.yaml', [tool('a3')]);
    expect(r.list().map((t) => t.name)).toEqual(['a3']);
    expect(() => r.replaceOrigin('/g/a.yaml', [tool('ok'), tool('bad name!')])).toThrow(/must match/);
    expect(r.list().map((t) => t.name)).toEqual(['a3']);
    r.removeOrigin('/g/a.yaml');
    expect(r.list()).toHaveLength(0);
    expect(changes).toBe(3);
  });

  it('refuses the same name twice in one origin', () => {
    expect(() => new ToolRegistry().register([tool('x'), tool('x')])).toThrow(/declared twice/);
  });
});
