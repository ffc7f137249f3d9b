import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';
import { connectModernStdio } from './helpers/modern-client';
import { waitFor } from './helpers/http-server';

const ROOT = path.resolve(__dirname, '../..');
const TEST_SERVER = path.join(ROOT, 'tests/fixtures/mcp-servers/test-server.js');
const SUM_TO_N = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ text: string }> };

/** A nested-format graph file with comments, one tool calling the fixture server's echo with a $-string argument. */
const TOOLS_YAML = `# Hand-written graph: its comments must survive the authoring tools.
version: "1.0"
server:
  name: "authoring"   # the server block
  version: "1.0.0"
mcpServers:
  fixture: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(TEST_SERVER)}] }
tools:
  # The first tool, written by hand.
  - name: "shout"
    description: "Echoes the message"
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
    outputSchema: { type: "object" }
    nodes:
      - { id: "entry", type: "entry", next: "call" }
      - { id: "call", type: "mcp", server: "fixture", tool: "echo", args: { message: "$.entry.message" }, next: "exit" }
      - { id: "exit", type: "exit" }
# Trailing comment.
`;

/** A tool that echoes its message through the fixture server and answers {said, length}. */
function echoTool(name: string, description = 'Echoes and measures the message') {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    outputSchema: { type: 'object', properties: { said: { type: 'string' }, length: { type: 'number' } } },
    nodes: [
      { id: 'entry', type: 'entry', next: 'call' },
      { id: 'call', type: 'mcp', server: 'fixture', tool: 'echo', args: { message: { expr: '$.entry.message' } }, next: 'measure' },
      { id: 'measure', type: 'transform', transform: { expr: '{"said": $.call.message, "length": $length($.call.message)}' }, next: 'exit' },
      { id: 'exit', type: 'exit' },
    ],
  };
}

describe('graph authoring: running drafts and changing graph files (built server, SDK client, real upstream server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphs: string;
  let file: string;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let listChanged = 0;
  const call = async (name: string, args: Record<string, unknown>) => (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
  const revisionOf = async () => ((await call('graph_server', { file: 'tools.yaml' })).structuredContent!.graphs[0].revision as string);

  beforeAll(async () => {
    tmp = tempDir('wg-authoring-write-');
    graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    file = path.join(graphs, 'tools.yaml');
    fs.writeFileSync(file, TOOLS_YAML);
    fs.copyFileSync(SUM_TO_N, path.join(graphs, 'sum_to_n.yaml'));
    fs.writeFileSync(path.join(graphs, 'empty.yaml'), '# nothing yet\nserver: { name: "empty", version: "1" }\ntools: []\n');
    fs.mkdirSync(path.join(tmp.dir, 'outside'));
    fs.writeFileSync(path.join(tmp.dir, 'outside', 'far.yaml'), 'server: { name: "far", version: "1" }\ntools: []\n');
    fs.writeFileSync(path.join(tmp.dir, 'not-served.yaml'), 'server: { name: "ns", version: "1" }\ntools: []\n');
    conn = await connectClient({
      dataDir: path.join(tmp.dir, 'data'),
      args: ['--graphs', graphs, '--graphs', path.join(tmp.dir, 'outside', 'far.yaml'), '--allow-root', graphs, '--graph-authoring'],
    });
    conn.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      listChanged++;
    });
  }, 60_000);
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('graph_tool_run: a draft runs in the file\'s graph (its MCP server), answers result and history, and is inspectable', async () => {
    const before = fs.readFileSync(file, 'utf8');
    const r = await call('graph_tool_run', { tool: echoTool('echo_measure'), file: 'tools.yaml', arguments: { message: 'hello' } });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent!;
    expect(out).toMatchObject({ status: 'completed', result: { said: 'hello', length: 5 }, nodeExecutions: 4, truncated: false });
    expect(out.history.map((h: { nodeId: string }) => h.nodeId)).toEqual(['entry', 'call', 'measure', 'exit']);
    expect(out.history[1].output).toMatchObject({ message: 'hello' });
    // Recorded as any run: graph_inspect knows it.
    const inspected = await call('graph_inspect', { executionId: out.executionId });
    expect(inspected.isError).toBeFalsy();
    expect(JSON.stringify(inspected.structuredContent)).toContain('echo_measure');
    // Nothing was written, nothing new is served.
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect((await conn.client.listTools()).tools.map((t) => t.name)).not.toContain('echo_measure');
  }, 60_000);

  it('graph_tool_run: bad arguments and a failing node are answers; a draft that would not load is invalid_graph with file:line:col', async () => {
    const bad = await call('graph_tool_run', { tool: echoTool('echo_measure'), file: 'tools.yaml', arguments: { message: 42 } });
    expect(bad.structuredContent).toMatchObject({ status: 'failed', error: { code: 'invalid_arguments' } });
    const alone = await call('graph_tool_run', {
      tool: { ...echoTool('alone'), nodes: [{ id: 'entry', type: 'entry', next: 't' }, { id: 't', type: 'transform', transform: { expr: '$notAFunction()' }, next: 'exit' }, { id: 'exit', type: 'exit' }] },
      arguments: { message: 'x' },
    });
    expect(alone.structuredContent).toMatchObject({ status: 'failed', error: { code: 'expression_error', nodeId: 't' } });
    const broken = await call('graph_tool_run', {
      tool: { ...echoTool('broken'), nodes: [{ id: 'entry', type: 'entry', next: 'nowhere' }, { id: 'exit', type: 'exit' }] },
      file: 'tools.yaml',
      arguments: { message: 'x' },
    });
    expect(broken.isError).toBe(true);
    expect(broken.content[0].text).toMatch(/^invalid_graph: the file would not load, nothing was written: .*tools\.yaml:\d+:\d+: tool 'broken'.*nowhere/);
    // A served tool by name, too.
    const served = await call('graph_tool_run', { name: 'shout', arguments: { message: 'm' } });
    expect(served.structuredContent).toMatchObject({ status: 'completed', result: { message: 'm' } });
    const both = await call('graph_tool_run', { name: 'shout', tool: echoTool('x'), arguments: {} });
    expect(both.content[0].text).toMatch(/^invalid_arguments: name, tool: give exactly one/);
  }, 60_000);

  it("graph_tool_run: a draft is bounded by its file's execution limits, as a served run is; alone, by the defaults", async () => {
    const limited = path.join(graphs, 'limited.yaml');
    fs.writeFileSync(limited, 'server: { name: "limited", version: "1" }\nexecutionLimits: { maxNodeExecutions: 20 }\ntools: []\n');
    await waitFor('limited.yaml loaded', async () => ((await call('graph_server', {})).structuredContent!.graphs as Array<{ file: string }>).some((g) => g.file.endsWith('limited.yaml')));
    const loop = {
      name: 'loop_to_n',
      description: 'Counts to n in a loop',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      outputSchema: { type: 'object' },
      nodes: [
        { id: 'entry', type: 'entry', next: 'count' },
        { id: 'count', type: 'transform', transform: { expr: '{"i": $executionCount("count") + 1}' }, next: 'again' },
        { id: 'again', type: 'switch', conditions: [{ rule: { '<': [{ var: '$.count.i' }, { var: '$.entry.n' }] }, target: 'count' }, { target: 'done' }] },
        { id: 'done', type: 'transform', transform: { expr: '$.count' }, next: 'exit' },
        { id: 'exit', type: 'exit' },
      ],
    };
    const stopped = await call('graph_tool_run', { tool: loop, file: 'limited.yaml', arguments: { n: 50 }, historyLimit: 3 });
    expect(stopped.structuredContent).toMatchObject({ status: 'failed', error: { code: 'execution_limit' }, nodeExecutions: 20, truncated: true });
    expect(stopped.structuredContent!.history).toHaveLength(3);
    const alone = await call('graph_tool_run', { tool: loop, arguments: { n: 50 } });
    expect(alone.structuredContent).toMatchObject({ status: 'completed', result: { i: 50 }, nodeExecutions: 1 + 50 * 2 + 2 });
    fs.rmSync(limited);
  }, 60_000);

  it('graph_tool_add: written with comments kept, served and callable at once (tools/list_changed); a stale revision is a conflict', async () => {
    const r0 = await revisionOf();
    const seen = listChanged;
    const added = await call('graph_tool_add', { file: 'tools.yaml', revision: r0, tool: echoTool('echo_measure') });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ file: fs.realpathSync(file), tools: ['shout', 'echo_measure'], warnings: [] });
    const text = fs.readFileSync(file, 'utf8');
    // Every line of the hand-written file is still there, in order; the new tool follows the first one.
    expect(text.startsWith(TOOLS_YAML.slice(0, TOOLS_YAML.indexOf('# Trailing comment.')))).toBe(true);
    expect(text).toContain('# Trailing comment.');
    // The file keeps reading $-strings as JSONata for "shout": the new tool's {expr} was written as a $-string.
    expect(text).toContain('message: $.entry.message');
    expect(listChanged).toBeGreaterThan(seen);
    expect((await conn.client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['shout', 'echo_measure']));
    expect((await call('echo_measure', { message: 'abc' })).structuredContent).toEqual({ said: 'abc', length: 3 });
    expect((await call('shout', { message: 'still' })).structuredContent).toMatchObject({ message: 'still' });
    expect((await call('graph_tool_get', { name: 'echo_measure' })).structuredContent!.revision).toBe(added.structuredContent!.revision);

    const stale = await call('graph_tool_add', { file: 'tools.yaml', revision: r0, tool: echoTool('another') });
    expect(stale.isError).toBe(true);
    expect(stale.content[0].text).toMatch(/^conflict: .*tools\.yaml changed since revision/);
    const twice = await call('graph_tool_add', { file: 'tools.yaml', revision: added.structuredContent!.revision, tool: echoTool('echo_measure') });
    expect(twice.content[0].text).toMatch(/^already_exists: graph tool 'echo_measure' already exists/);
  }, 60_000);

  it('graph_tool_update after a hand edit: conflict first, then on the new revision the tool is replaced and the hand edit kept', async () => {
    const r1 = await revisionOf();
    fs.appendFileSync(file, '# A hand edit made while the agent worked.\n');
    const conflict = await call('graph_tool_update', { name: 'echo_measure', revision: r1, tool: echoTool('echo_measure', 'v2') });
    expect(conflict.content[0].text).toMatch(/^conflict: /);
    await waitFor('the hand edit reloaded', async () => (await revisionOf()) !== r1);
    const r2 = await revisionOf();
    const updated = await call('graph_tool_update', { name: 'echo_measure', revision: r2, tool: echoTool('echo_measure', 'v2') });
    expect(updated.isError).toBeFalsy();
    expect(fs.readFileSync(file, 'utf8')).toContain('# A hand edit made while the agent worked.');
    expect((await conn.client.listTools()).tools.find((t) => t.name === 'echo_measure')!.description).toBe('v2');
    // A broken update is refused with its file:line:col and nothing is written.
    const before = fs.readFileSync(file, 'utf8');
    const badExpr = echoTool('echo_measure');
    badExpr.nodes[2] = { id: 'measure', type: 'transform', transform: { expr: '{"said": $.call.message' }, next: 'exit' };
    const refused = await call('graph_tool_update', { name: 'echo_measure', revision: updated.structuredContent!.revision, tool: badExpr });
    expect(refused.content[0].text).toMatch(/^invalid_graph: the file would not load, nothing was written: .*tools\.yaml:\d+:\d+: tool 'echo_measure', node 'measure'/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    // Bad input is named by the input schema.
    const noNodes = await call('graph_tool_update', { name: 'echo_measure', revision: 'x', tool: { name: 'echo_measure', inputSchema: {}, outputSchema: {} } });
    expect(noNodes.content[0].text).toMatch(/^invalid_arguments: .*tool.*nodes/);
  }, 60_000);

  it('graph_tool_delete: gone from the file and from the list; the other tool and the comments stay', async () => {
    const r = await revisionOf();
    const deleted = await call('graph_tool_delete', { name: 'echo_measure', revision: r });
    expect(deleted.structuredContent).toMatchObject({ tools: ['shout'] });
    expect((await conn.client.listTools()).tools.map((t) => t.name)).not.toContain('echo_measure');
    await expect(conn.client.callTool({ name: 'echo_measure', arguments: { message: 'x' } })).rejects.toThrow(/Unknown tool/);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('# The first tool, written by hand.');
    expect(text).toContain('# Trailing comment.');
    expect(text).not.toContain('echo_measure');
    const unknown = await call('graph_tool_delete', { name: 'echo_measure', revision: deleted.structuredContent!.revision });
    expect(unknown.content[0].text).toMatch(/^not_found: graph tool 'echo_measure' not found/);
  }, 60_000);

  it('a tool name with a dot (valid in a graph file and in MCP) round-trips: added, got, updated, deleted', async () => {
    const added = await call('graph_tool_add', { file: 'tools.yaml', revision: await revisionOf(), tool: echoTool('echo.dotted') });
    expect(added.structuredContent).toMatchObject({ tools: ['shout', 'echo.dotted'] });
    const got = (await call('graph_tool_get', { name: 'echo.dotted' })).structuredContent!;
    const { file: _f, revision, ...definition } = got;
    const updated = await call('graph_tool_update', { name: 'echo.dotted', revision, tool: { ...definition, description: 'dotted v2' } });
    expect(updated.isError).toBeFalsy();
    expect((await call('echo.dotted', { message: 'dot' })).structuredContent).toEqual({ said: 'dot', length: 3 });
    const deleted = await call('graph_tool_delete', { name: 'echo.dotted', revision: updated.structuredContent!.revision });
    expect(deleted.structuredContent).toMatchObject({ tools: ['shout'] });
  }, 60_000);

  it('a first tool in a file with none; a file outside the roots, one --graphs does not name: refused', async () => {
    const empty = (await call('graph_server', { file: 'empty.yaml' })).structuredContent!.graphs[0];
    const first = await call('graph_tool_add', { file: 'empty.yaml', revision: empty.revision, tool: { ...echoTool('first_one'), nodes: [{ id: 'entry', type: 'entry', next: 'exit' }, { id: 'exit', type: 'exit' }] } });
    expect(first.structuredContent).toMatchObject({ tools: ['first_one'] });
    expect(fs.readFileSync(path.join(graphs, 'empty.yaml'), 'utf8')).toMatch(/^# nothing yet\nserver: \{ name: "empty", version: "1" \}\ntools:\n {2}- name: first_one\n/);
    expect((await call('first_one', { message: 'a' })).structuredContent).toEqual({ message: 'a' });

    const far = (await call('graph_server', { file: 'far.yaml' })).structuredContent!.graphs[0];
    const outside = await call('graph_tool_add', { file: far.file, revision: far.revision, tool: echoTool('far_tool') });
    expect(outside.content[0].text).toMatch(/^path_not_allowed: file: .*outside the allowed roots/);
    const notServed = await call('graph_tool_add', { file: path.join(tmp.dir, 'not-served.yaml'), revision: 'x', tool: echoTool('ns_tool') });
    expect(notServed.content[0].text).toMatch(/^invalid_arguments: file: '.*not-served\.yaml' is not a graph file this server serves/);
  }, 60_000);

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

  it('the modern era hears the change on its listen stream', async () => {
    const modern = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data-modern'), args: ['--graphs', graphs, '--allow-root', graphs, '--graph-authoring'] });
    try {
      let changed = 0;
      modern.client.setNotificationHandler('notifications/tools/list_changed', async () => void changed++);
      const sub = await modern.client.listen({ toolsListChanged: true });
      const r = (await modern.client.callTool({ name: 'graph_server', arguments: { file: 'tools.yaml' } })).structuredContent as { graphs: Array<{ revision: string }> };
      const added = await modern.client.callTool({ name: 'graph_tool_add', arguments: { file: 'tools.yaml', revision: r.graphs[0].revision, tool: echoTool('modern_tool') } });
      expect(added.isError).toBeFalsy();
      await waitFor('tools/list_changed on the listen stream', () => changed > 0);
      expect((await modern.client.listTools()).tools.map((t) => t.name)).toContain('modern_tool');
      await sub.close();
    } finally {
      await modern.close();
    }
  }, 60_000);
});
