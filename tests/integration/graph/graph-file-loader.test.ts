import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidGraphError } from '../../../src/kernel/errors';
import { GraphFileLoader, validateGraphFile } from '../../../src/modules/graph/infrastructure';

const fixtures = path.join(__dirname, '../../fixtures/graphs');

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-graph-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, text);
  return file;
}

/** A nested-format file with one tool `t` whose nodes are the given YAML list items (indented by 6). */
function toolFile(nodes: string, extra = ''): string {
  return `server: { name: "s", version: "1" }
mcpServers:
  known: { command: "node" }
${extra}tools:
  - name: "t"
    description: "test"
    inputSchema: { type: "object" }
    outputSchema: { type: "object" }
    nodes:
${nodes}`;
}

async function loadError(text: string, name = 'bad.yaml'): Promise<InvalidGraphError> {
  const file = await write(name, text);
  const err = await new GraphFileLoader().load(file).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidGraphError);
  return err as InvalidGraphError;
}

describe('GraphFileLoader: the three formats', () => {
  it.each([
    ['older-format.yaml', 'older', 'older_list'],
    ['nested-format.yaml', 'nested', 'nested_classify'],
    ['newest-format.yaml', 'newest', 'newest_echo'],
    ['nested-format.json', 'nested', 'json_double'],
  ])('loads %s as the %s format', async (name, format, tool) => {
    const graph = await new GraphFileLoader().load(path.join(fixtures, name));
    expect(graph.config.format).toBe(format);
    expect(graph.config.file).toBe(path.join(fixtures, name));
    expect([...graph.tools.keys()]).toEqual([tool]);
    expect(await validateGraphFile(path.join(fixtures, name))).toEqual([]);
  });

  it('loads the seed example unchanged', async () => {
    const graph = await new GraphFileLoader().load(path.join(__dirname, '../../../examples/graphs/sum_to_n.yaml'));
    expect(graph.config.format).toBe('older');
    expect(graph.config.server).toEqual({ name: 'loopExample', version: '1.0.0', description: 'Example with a loop using history functions' });
  });
});

describe('GraphFileLoader: load-time checks name file, tool, node and line', () => {
  const entry = '      - { id: "in", type: "entry", next: "out" }\n';
  const exit = '      - { id: "out", type: "exit" }\n';

  it('exactly one entry', async () => {
    const err = await loadError(toolFile(exit));
    expect(err.message).toBe(`${path.join(dir, 'bad.yaml')}:5:5: tool 't': must have exactly one entry node, found 0`);
    expect(err.details).toEqual({ file: path.join(dir, 'bad.yaml'), tool: 't', line: 5 });
  });

  it('exactly one exit', async () => {
    const err = await loadError(toolFile(entry + exit + '      - { id: "out2", type: "exit" }\n'));
    expect(err.message).toMatch(/bad\.yaml:12:9: tool 't': must have exactly one exit node, found 2 \(out, out2\)$/);
  });

  it('every next exists', async () => {
    const err = await loadError(toolFile('      - { id: "in", type: "entry", next: "ghost" }\n' + exit));
    expect(err.message).toMatch(/bad\.yaml:10:9: tool 't', node 'in': routes to 'ghost', which is not a node of this tool \(and 1 more problem\)$/);
    expect(err.details).toMatchObject({ tool: 't', node: 'in', line: 10 });
  });

  it('every switch target exists', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "sw" }
      - id: "sw"
        type: "switch"
        conditions:
          - { rule: { "==": [1, 1] }, target: "nowhere" }
          - { target: "out" }
` + exit));
    expect(err.message).toMatch(/bad\.yaml:11:9: tool 't', node 'sw': routes to 'nowhere', which is not a node of this tool$/);
  });

  it('every server declared', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "call" }
      - { id: "call", type: "mcp", server: "missing", tool: "x", args: {}, next: "out" }
` + exit));
    expect(err.message).toMatch(/bad\.yaml:11:9: tool 't', node 'call': server 'missing' is not declared under mcpServers\/servers \(declared: known\)$/);
  });

  it('exit reachable', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "spin" }
      - { id: "spin", type: "transform", transform: { expr: "1" }, next: "spin" }
` + exit));
    expect(err.message).toMatch(/bad\.yaml:12:9: tool 't', node 'out': exit node is not reachable from entry node 'in'$/);
  });

  it('no duplicate ids', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "x" }
      - { id: "x", type: "transform", transform: { expr: "1" }, next: "out" }
      - { id: "x", type: "transform", transform: { expr: "2" }, next: "out" }
` + exit));
    expect(err.message).toMatch(/bad\.yaml:12:9: tool 't', node 'x': duplicate node id$/);
  });

  it('JSONata syntax valid', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "x" }
      - { id: "x", type: "transform", transform: { expr: "$.in +" }, next: "out" }
` + exit));
    // At the expression's offending character (just past `+`, where it ends too early), not at the node (11:9).
    expect(err.message).toMatch(/bad\.yaml:11:65: tool 't', node 'x': JSONata syntax error at character 6: Unexpected end of expression \(near "\$\.in \+"\)$/);
  });

  it('JSONata syntax valid in mcp args ({expr} args; an older-rule $-string that is not JSONata stays a literal)', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "call" }
      - { id: "call", type: "mcp", server: "known", tool: "x", args: { a: { expr: "$.in.(" } }, next: "out" }
` + exit));
    expect(err.message).toMatch(/tool 't', node 'call': JSONata syntax error/);
    const file = await write('older-rule.yaml', toolFile(`      - { id: "in", type: "entry", next: "call" }
      - { id: "call", type: "mcp", server: "known", tool: "x", args: { a: "$.in.(" }, next: "out" }
` + exit));
    const graph = await new GraphFileLoader().load(file);
    expect(graph.warnings.map((w) => w.message)).toEqual([expect.stringContaining('argument "$.in.(" starts with \'$\' but is not valid JSONata')]);
  });

  it('JSON Logic valid (operators and var expressions)', async () => {
    const sw = (rule: string): string => toolFile(`      - { id: "in", type: "entry", next: "sw" }
      - id: "sw"
        type: "switch"
        conditions:
          - { rule: ${rule}, target: "out" }
` + exit);
    expect((await loadError(sw('{ "~~": [1, 2] }'))).message).toMatch(
      /bad\.yaml:11:9: tool 't', node 'sw': conditions\[0\]: rule: unknown JSON Logic operator '~~'$/,
    );
    expect((await loadError(sw('{ "==": [{ "var": "$.in +" }, 1] }'))).message).toMatch(
      /node 'sw': conditions\[0\]: rule\.==\[0\]: var "\$\.in \+" is not valid JSONata/,
    );
  });

  it('schema problems name the field, node and line', async () => {
    const err = await loadError(toolFile(`      - { id: "in", type: "entry", next: "x" }
      - { id: "x", type: "transform", next: "out" }
` + exit));
    expect(err.message).toMatch(/bad\.yaml:11:9: tool 't', node 'x': \/tools\/0\/nodes\/1: missing required property 'transform'$/);
  });

  it('YAML syntax errors carry their position', async () => {
    const problems = await validateGraphFile(await write('broken.yaml', 'server: { name: "s"\ntools: [\n'));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ file: path.join(dir, 'broken.yaml'), line: expect.any(Number), column: expect.any(Number) });
    expect(problems[0]!.message).toMatch(/^YAML: /);
  });

  it('JSON syntax errors carry their position', async () => {
    const problems = await validateGraphFile(await write('broken.json', '{\n  "server": {"name": "s",}\n}'));
    expect(problems[0]).toMatchObject({ line: 2, message: expect.stringMatching(/trailing commas/) });
  });

  it('validateGraphFile reports every problem with line and column', async () => {
    const file = await write('many.yaml', toolFile(`      - { id: "in", type: "entry", next: "ghost" }
      - { id: "call", type: "mcp", server: "missing", tool: "x", args: {}, next: "out" }
` + exit));
    const problems = await validateGraphFile(file);
    expect(problems).toEqual([
      { file, line: 10, column: 9, message: "tool 't', node 'in': routes to 'ghost', which is not a node of this tool" },
      { file, line: 11, column: 9, message: "tool 't', node 'call': server 'missing' is not declared under mcpServers/servers (declared: known)" },
      { file, line: 12, column: 9, message: "tool 't', node 'out': exit node is not reachable from entry node 'in'" },
    ]);
  });

  it('names the line in JSON files too', async () => {
    const text = JSON.stringify(
      {
        server: { name: 's', version: '1' },
        tools: [{ name: 't', description: '', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, nodes: [{ id: 'in', type: 'entry', next: 'nowhere' }, { id: 'out', type: 'exit' }] }],
      },
      null,
      2,
    );
    const problems = await validateGraphFile(await write('g.json', text));
    expect(problems[0]).toMatchObject({ line: 17, column: 9, message: "tool 't', node 'in': routes to 'nowhere', which is not a node of this tool" });
  });

  it('a missing file is a clear problem', async () => {
    expect(await validateGraphFile(path.join(dir, 'absent.yaml'))).toEqual([
      { file: path.join(dir, 'absent.yaml'), line: 1, column: 1, message: 'cannot read graph file: ENOENT' },
    ]);
  });
});
