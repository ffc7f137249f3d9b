import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { editToolList } from '../../../../src/modules/graph/infrastructure/graph-file-text-edit';

const ROOT = path.resolve(__dirname, '../../../..');
const COUNT_FILES = fs.readFileSync(path.join(ROOT, 'examples/graphs/count_files.yaml'), 'utf8');
const NESTED = fs.readFileSync(path.join(ROOT, 'tests/fixtures/graphs/nested-format.yaml'), 'utf8');

const tool = (name: string, expr = '$.entry') => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  nodes: [
    { id: 'entry', type: 'entry', next: 't' },
    { id: 't', type: 'transform', transform: { expr }, next: 'exit' },
    { id: 'exit', type: 'exit' },
  ],
});

/** The lines of `after` that are not in `before`, and those of `before` no longer in `after` (a line diff, by set). */
function changedLines(before: string, after: string): { added: string[]; removed: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  return { added: b.filter((l) => !a.includes(l)), removed: a.filter((l) => !b.includes(l)) };
}

describe('editToolList: one tool of a graph file rewritten, every other byte kept', () => {
  it('YAML add: the file as it was, the new tool appended at the list\'s indentation (multi-line JSONata as a block scalar)', () => {
    const out = editToolList(COUNT_FILES, 'count_files.yaml', { kind: 'add', tool: tool('second', '(\n  $x := 1;\n  $x\n)') });
    expect(out.startsWith(COUNT_FILES)).toBe(true);
    const added = out.slice(COUNT_FILES.length);
    expect(added).toMatch(/^ {2}- name: second\n {4}description: the second tool\n/);
    expect(added).toContain('        transform:\n          expr: |-\n            (\n              $x := 1;');
    expect(parse(out).tools.map((t: { name: string }) => t.name)).toEqual(['count_files', 'second']);
  });

  it('YAML replace and remove touch only that tool: comments, flow lists and the other tools stay byte for byte', () => {
    const two = editToolList(NESTED, 'g.yaml', { kind: 'add', tool: tool('extra') });
    const names = parse(two).tools.map((t: { name: string }) => t.name);
    const replaced = editToolList(two, 'g.yaml', { kind: 'replace', index: 0, tool: tool('first_again') });
    const diff = changedLines(two, replaced);
    // Flow collections such as `required: ["x"]` elsewhere are not re-spaced; the comment lines all survive.
    for (const l of NESTED.split('\n').filter((x) => x.trim().startsWith('#'))) expect(replaced).toContain(l);
    expect(diff.added.some((l) => l.includes('name: first_again'))).toBe(true);
    expect(replaced.slice(replaced.indexOf('- name: extra'))).toBe(two.slice(two.indexOf('- name: extra')));
    const removed = editToolList(two, 'g.yaml', { kind: 'remove', index: names.length - 1 });
    expect(removed).toBe(NESTED.endsWith('\n') ? NESTED : `${NESTED}\n`);
  });

  it('YAML: a file with no tools (absent, null or []) gets a block list; removing the last tool leaves tools: []', () => {
    const header = '# my graph\nserver: { name: "g", version: "1" }  # keep me\n';
    for (const text of [header, `${header}tools: []\n# after\nexecutionLimits: { maxNodeExecutions: 5 }\n`, `${header}tools:\n`]) {
      const out = editToolList(text, 'g.yaml', { kind: 'add', tool: tool('only') });
      expect(out.startsWith(header)).toBe(true);
      expect(parse(out).tools.map((t: { name: string }) => t.name)).toEqual(['only']);
      if (text.includes('# after')) expect(out).toContain('# after\nexecutionLimits: { maxNodeExecutions: 5 }\n');
      const back = editToolList(out, 'g.yaml', { kind: 'remove', index: 0 });
      expect(parse(back).tools).toEqual([]);
      expect(back.startsWith(header)).toBe(true);
    }
  });

  it('YAML remove takes the comment lines right above the tool with it, and leaves the others', () => {
    const text = 'server: { name: g, version: "1" }\ntools:\n  # about a\n  - name: a\n    nodes: []\n  # about b\n  - name: b\n    nodes: []\n# the end\n';
    expect(editToolList(text, 'g.yaml', { kind: 'remove', index: 1 })).toBe('server: { name: g, version: "1" }\ntools:\n  # about a\n  - name: a\n    nodes: []\n# the end\n');
  });

  it('JSON: jsonc-parser edits in place with the file\'s indentation', () => {
    const text = `${JSON.stringify({ server: { name: 'g', version: '1' }, tools: [tool('a')] }, null, 4)}\n`;
    const out = editToolList(text, 'g.json', { kind: 'add', tool: tool('b') });
    expect(JSON.parse(out).tools.map((t: { name: string }) => t.name)).toEqual(['a', 'b']);
    expect(out.startsWith(text.slice(0, text.indexOf('"tools"')))).toBe(true);
    expect(out).toContain('\n            "name": "b"');
    const removed = editToolList(out, 'g.json', { kind: 'remove', index: 1 });
    expect(JSON.parse(removed)).toEqual(JSON.parse(text));
    const replaced = editToolList(text, 'g.json', { kind: 'replace', index: 0, tool: tool('c') });
    expect(JSON.parse(replaced).tools.map((t: { name: string }) => t.name)).toEqual(['c']);
  });
});
