import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectModernStdio } from './helpers/modern-client';
import { waitFor } from './helpers/http-server';
import { echoTool, TOOLS_YAML, useAuthoringServer, type AuthoringServer } from './helpers/authoring-server';

/**
 * The graph authoring tools that run drafts and change graph files, through the built server and the SDK client with
 * a real upstream MCP server: graph_tool_run, graph_tool_add/update/delete on a hand-written nested file (comments
 * kept, revisions checked, tools/list_changed), files outside the roots, the modern era's listen stream. (Older-format
 * files converted on their first change: graph-authoring-older-format.test.ts.)
 */

describe('graph authoring: running drafts and changing graph files (built server, SDK client, real upstream server)', () => {
  const t = useAuthoringServer('wg-authoring-write');
  const { call, revisionOf } = t;
  let tmp: AuthoringServer['tmp'];
  let graphs: string;
  let file: string;
  let conn: AuthoringServer['conn'];
  beforeAll(() => ({ tmp, graphs, file, conn } = t));

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
    const seen = t.listChanged;
    const added = await call('graph_tool_add', { file: 'tools.yaml', revision: r0, tool: echoTool('echo_measure') });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ file: fs.realpathSync(file), tools: ['shout', 'echo_measure'], warnings: [] });
    const text = fs.readFileSync(file, 'utf8');
    // Every line of the hand-written file is still there, in order; the new tool follows the first one.
    expect(text.startsWith(TOOLS_YAML.slice(0, TOOLS_YAML.indexOf('# Trailing comment.')))).toBe(true);
    expect(text).toContain('# Trailing comment.');
    // The file keeps reading $-strings as JSONata for "shout": the new tool's {expr} was written as a $-string.
    expect(text).toContain('message: $.entry.message');
    expect(t.listChanged).toBeGreaterThan(seen);
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
