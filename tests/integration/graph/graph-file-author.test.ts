import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { ConflictError, InvalidArgumentsError } from '../../../src/kernel/errors';
import { GraphHost } from '../../../src/modules/graph/infrastructure/graph-host';
import { GraphFileAuthor } from '../../../src/modules/graph/infrastructure/graph-file-author';
import { graphFileRevision } from '../../../src/modules/graph/infrastructure/graph-file-revision';

/** A tool calling `srv`'s echo with the given argument value. */
const mcpTool = (name: string, message: unknown) => ({
  name,
  description: `calls echo (${name})`,
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  nodes: [
    { id: 'entry', type: 'entry', next: 'call' },
    { id: 'call', type: 'mcp', server: 'srv', tool: 'echo', args: { message }, next: 'exit' },
    { id: 'exit', type: 'exit' },
  ],
});

const header = 'server: { name: "g", version: "1" }\nmcpServers:\n  srv: { command: "node" }\n';

/** GraphFileAuthor over real files: the one-rule-per-file argument reading, races, permissions. */
describe('GraphFileAuthor', () => {
  let dir: string;
  let host: GraphHost;
  let author: GraphFileAuthor;
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const argsOf = (file: string, tool: string) => parse(fs.readFileSync(file, 'utf8')).tools.find((t: { name: string }) => t.name === tool).nodes[1].args;

  beforeEach(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-author-')));
    fs.mkdirSync(path.join(dir, 'graphs'));
    host = new GraphHost();
    author = new GraphFileAuthor(host, [path.join(dir, 'graphs')], path.join(dir, 'locks'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a nested file that relies on $-strings: {expr} starting with $ is written as a $-string; one that cannot be is refused naming the rule', async () => {
    const file = write('graphs/g.yaml', `${header}tools:\n  - ${JSON.stringify(mcpTool('old', '$.entry.m'))}\n`);
    let revision = graphFileRevision(fs.readFileSync(file, 'utf8'));
    revision = (await author.change(file, revision, { kind: 'add', tool: mcpTool('new', { expr: '$.entry.m' }) })).revision;
    expect(argsOf(file, 'new')).toEqual({ message: '$.entry.m' });
    expect(argsOf(file, 'old')).toEqual({ message: '$.entry.m' });
    const before = fs.readFileSync(file, 'utf8');
    await expect(author.change(file, revision, { kind: 'add', tool: mcpTool('concat', { expr: '"a" & $.entry.m' }) })).rejects.toThrow(InvalidArgumentsError);
    await expect(author.change(file, revision, { kind: 'add', tool: mcpTool('price', { expr: '"$5"' }) })).rejects.toThrow(/what some mcp node's arguments mean/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('a newest-format file: a tool written with JSONata $-strings gets {expr} objects; deleting the last {expr} tool beside a literal "$5" is refused', async () => {
    const file = write('graphs/g.yaml', `${header}tools:\n  - ${JSON.stringify(mcpTool('expr_tool', { expr: '$.entry.m' }))}\n  - ${JSON.stringify(mcpTool('price', '$5.00'))}\n`);
    let revision = graphFileRevision(fs.readFileSync(file, 'utf8'));
    revision = (await author.change(file, revision, { kind: 'add', tool: mcpTool('dollar', '$.entry.m') })).revision;
    expect(argsOf(file, 'dollar')).toEqual({ message: { expr: '$.entry.m' } });
    // Without {expr} left, "$5.00" would turn into JSONata: refused, nothing written.
    const two = (await author.change(file, revision, { kind: 'delete', name: 'dollar' })).revision;
    await expect(author.change(file, two, { kind: 'delete', name: 'expr_tool' })).rejects.toThrow(/what some mcp node's arguments mean/);
    expect(argsOf(file, 'price')).toEqual({ message: '$5.00' });
  });

  it('two changes racing on one revision: one is written, the other is a conflict naming both revisions', async () => {
    const file = write('graphs/g.yaml', `${header}tools: []\n`);
    const revision = graphFileRevision(fs.readFileSync(file, 'utf8'));
    const results = await Promise.allSettled([
      author.change(file, revision, { kind: 'add', tool: mcpTool('a', 'x') }),
      author.change(file, revision, { kind: 'add', tool: mcpTool('b', 'x') }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ConflictError);
    expect((lost.reason as Error).message).toContain(`changed since revision ${revision} was read (it is at `);
    expect(parse(fs.readFileSync(file, 'utf8')).tools).toHaveLength(1);
  });

  it('keeps the file\'s permissions, edits JSON files in place, and locates files by name inside --graphs only', async () => {
    const file = write('graphs/g.json', `${JSON.stringify({ server: { name: 'g', version: '1' }, mcpServers: { srv: { command: 'node' } }, tools: [] }, null, 2)}\n`);
    fs.chmodSync(file, 0o600);
    await author.change(file, graphFileRevision(fs.readFileSync(file, 'utf8')), { kind: 'add', tool: mcpTool('j', { expr: '$.entry.m' }) });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).tools[0].name).toBe('j');
    expect(fs.readdirSync(path.join(dir, 'graphs'))).toEqual(['g.json']);
    expect(await author.locate('g.json', 'file')).toBe(file);
    const outside = write('other.yaml', `${header}tools: []\n`);
    await expect(author.locate(outside, 'file')).rejects.toThrow(/^file: '.*other\.yaml' is not a graph file this server serves/);
    await expect(author.locate('missing.yaml', 'file')).rejects.toThrow(/graph file 'missing.yaml' not found/);
    // A symlink inside --graphs to a file outside it is judged by where it leads.
    fs.symlinkSync(outside, path.join(dir, 'graphs', 'link.yaml'));
    await expect(author.locate(path.join(dir, 'graphs', 'link.yaml'), 'file')).rejects.toThrow(/is not a graph file this server serves/);
  });

  it('a tool named like one another served file declares, or like a built-in tool, is refused naming both; nothing written', async () => {
    const other = write('graphs/other.yaml', `${header}tools:\n  - ${JSON.stringify(mcpTool('taken', 'x'))}\n`);
    const file = write('graphs/g.yaml', `${header}tools: []\n`);
    host = new GraphHost({ reservedToolNames: ['workflow_list'] });
    await host.load([other, file]);
    author = new GraphFileAuthor(host, [path.join(dir, 'graphs')], path.join(dir, 'locks'));
    const revision = graphFileRevision(fs.readFileSync(file, 'utf8'));
    await expect(author.change(file, revision, { kind: 'add', tool: mcpTool('taken', 'x') })).rejects.toThrow(`${file}: tool 'taken' is also declared in ${other}`);
    await expect(author.change(file, revision, { kind: 'add', tool: mcpTool('workflow_list', 'x') })).rejects.toThrow(/clashes with workgraph's built-in tool 'workflow_list'/);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${header}tools: []\n`);
  });
});
