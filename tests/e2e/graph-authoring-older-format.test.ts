import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor } from './helpers/http-server';
import { echoTool, useAuthoringServer } from './helpers/authoring-server';

/**
 * Graph files in mcpgraph's older format changed through the authoring tools (built server, SDK client, real upstream
 * server): converted to the nested format on their first change — a tool added or updated — with their comments kept
 * and their tools running as before; a file that cannot be split is refused and left as it was. (The nested format:
 * graph-authoring-write.test.ts.)
 */

describe('graph authoring: older-format files (built server, SDK client, real upstream server)', () => {
  const t = useAuthoringServer('wg-authoring-older');
  const { call } = t;
  let graphs: string;
  beforeAll(() => ({ graphs } = t));

  it('an older-format file (sum_to_n) is converted to the nested format on its first change: comments kept, its tool runs as before', async () => {
    const sumFile = path.join(graphs, 'sum_to_n.yaml');
    const original = fs.readFileSync(sumFile, 'utf8');
    const before = await call('sum_to_n', { n: 10 });
    const sum = (await call('graph_server', { file: 'sum_to_n.yaml' })).structuredContent!.graphs[0];
    expect(sum.format).toBe('older');
    const triple = {
      name: 'triple',
      description: 'Triples n',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      outputSchema: { type: 'object', properties: { tripled: { type: 'number' } } },
      nodes: [
        { id: 'entry', type: 'entry', next: 'times' },
        { id: 'times', type: 'transform', transform: { expr: '{"tripled": $.entry.n * 3}' }, next: 'exit' },
        { id: 'exit', type: 'exit' },
      ],
    };
    // A draft run in the older file sees it converted in memory, and writes nothing.
    const drafted = await call('graph_tool_run', { tool: triple, file: 'sum_to_n.yaml', arguments: { n: 2 } });
    expect(drafted.structuredContent).toMatchObject({ status: 'completed', result: { tripled: 6 } });
    expect(fs.readFileSync(sumFile, 'utf8')).toBe(original);
    const added = await call('graph_tool_add', { file: 'sum_to_n.yaml', revision: sum.revision, tool: triple });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ tools: ['sum_to_n', 'triple'] });
    expect(added.structuredContent!.warnings).toEqual([expect.stringMatching(/sum_to_n\.yaml: converted from mcpgraph's older format .* to the nested one/)]);
    const text = fs.readFileSync(sumFile, 'utf8');
    // Every comment of the hand-written file survives; the header up to the nodes is byte for byte the same.
    for (const comment of original.split('\n').filter((l) => l.trim().startsWith('#'))) expect(text).toContain(comment.trim());
    expect(text.startsWith(original.slice(0, original.indexOf('\n# Graph Nodes')))).toBe(true);
    expect(text).not.toMatch(/^nodes:/m);
    expect((await call('graph_server', { file: 'sum_to_n.yaml' })).structuredContent!.graphs[0]).toMatchObject({ format: 'nested', tools: ['sum_to_n', 'triple'] });
    // Served at once, and the converted tool answers as the older file's did.
    expect((await call('triple', { n: 4 })).structuredContent).toEqual({ tripled: 12 });
    expect((await call('sum_to_n', { n: 10 })).structuredContent).toEqual(before.structuredContent);
    expect(before.structuredContent).toEqual({ sum: 55 });
    // Further changes are ordinary changes of a nested file: no second conversion note.
    const updated = await call('graph_tool_update', { name: 'triple', revision: added.structuredContent!.revision, tool: { ...triple, description: 'Triples n (v2)' } });
    expect(updated.structuredContent).toMatchObject({ tools: ['sum_to_n', 'triple'], warnings: [] });
    const deleted = await call('graph_tool_delete', { name: 'triple', revision: updated.structuredContent!.revision });
    expect(deleted.structuredContent).toMatchObject({ tools: ['sum_to_n'], warnings: [] });
    expect((await call('sum_to_n', { n: 3 })).structuredContent).toEqual({ sum: 6 });
  }, 60_000);

  it('an older-format file whose tool is updated first is converted too; one that cannot be split is refused and left as it was', async () => {
    const older = path.join(graphs, 'older-two.yaml');
    const bad = path.join(graphs, 'older-bad.yaml');
    const text = `# hand-written, older format
server: { name: "olderTwo", version: "1" }
tools:
  - name: "older_echo"
    description: "Echoes"
    inputSchema: { type: "object", properties: { m: { type: "string" } } }
    outputSchema: { type: "object" }
nodes:
  - id: "in"
    type: "entry"
    tool: "older_echo"
    next: "out"
  - id: "out"   # the exit
    type: "exit"
    tool: "older_echo"
`;
    fs.writeFileSync(older, text);
    fs.writeFileSync(bad, 'server: { name: "olderBad", version: "1" }\nnodes:\n  - { id: loop, type: transform, transform: { expr: "1" }, next: loop }\n');
    await waitFor('both files loaded', async () => ((await call('graph_server', {})).structuredContent!.graphs as Array<{ file: string }>).filter((g) => /older-(two|bad)\.yaml$/.test(g.file)).length === 2);
    const r = (await call('graph_server', { file: 'older-two.yaml' })).structuredContent!.graphs[0];
    const def = (await call('graph_tool_get', { name: 'older_echo' })).structuredContent!;
    const updated = await call('graph_tool_update', { name: 'older_echo', revision: r.revision, tool: { name: 'older_echo', description: 'Echoes (v2)', inputSchema: def.inputSchema, outputSchema: def.outputSchema, nodes: def.nodes } });
    expect(updated.isError).toBeFalsy();
    expect(updated.structuredContent!.warnings[0]).toMatch(/converted from mcpgraph's older format/);
    const after = fs.readFileSync(older, 'utf8');
    expect(after).toContain('# hand-written, older format');
    // The updated tool is rewritten as a whole (its node lines and their comments with it), as in any nested file.
    expect(after).not.toMatch(/^nodes:/m);
    expect(after).toMatch(/^ {4}nodes:\n {6}- id: in\n/m);
    expect((await call('older_echo', { m: 'hi' })).structuredContent).toEqual({ m: 'hi' });

    const b = (await call('graph_server', { file: 'older-bad.yaml' })).structuredContent!.graphs[0];
    const badText = fs.readFileSync(bad, 'utf8');
    const refused = await call('graph_tool_add', { file: 'older-bad.yaml', revision: b.revision, tool: echoTool('never') });
    expect(refused.content[0].text).toMatch(/^invalid_arguments: file: .*older-bad\.yaml is in mcpgraph's older format and cannot be converted to the nested one: the file declares nodes but no tools/);
    expect(fs.readFileSync(bad, 'utf8')).toBe(badText);
  }, 60_000);
});
