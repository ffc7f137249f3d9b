import { summarizeStderr } from '../../../../src/modules/graph/infrastructure/mcp/stderr-summary';

describe('summarizeStderr', () => {
  it("keeps Node's 'Cannot find module' line even when a long require stack follows it", () => {
    const tail = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/srv/missing-server.js'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      ...Array.from({ length: 40 }, (_, i) => `    at frame${i} (node:internal/whatever:${i}:1)`),
      '{',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v20.19.0',
    ].join('\n');
    const s = summarizeStderr(tail);
    expect(s).toContain("Error: Cannot find module '/srv/missing-server.js'");
    expect(s).toContain('Node.js v20.19.0');
    expect(s).not.toContain('frame');
    expect(s.length).toBeLessThanOrEqual(600);
  });

  it('falls back to the last line when no line names an error, and bounds the length', () => {
    expect(summarizeStderr('starting\nlistening on 3000\n')).toBe('listening on 3000');
    expect(summarizeStderr('')).toBe('');
    const long = `Error: ${'x'.repeat(5000)}`;
    expect(summarizeStderr(long).length).toBeLessThanOrEqual(600);
  });
});
