/**
 * Issue 25's "Tests" list, the bullets the other authoring tests leave open: concurrent writers — two agents in two
 * server processes sharing the data dir and the graph folder, and several calls of one agent at once — each writing on
 * the revision it read: exactly one write lands, the others are `conflict`, nothing is lost or interleaved, and both
 * processes serve the result. And paths that lead out of `--graphs` or the roots by a symlink or `..`: refused, the
 * file they lead to untouched.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { connectClient, tempDir } from './helpers/server-process';
import { waitFor } from './helpers/http-server';

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ text: string }> };
type Conn = Awaited<ReturnType<typeof connectClient>>;

const GRAPH = `# shared by two agents
server: { name: "shared", version: "1" }
tools:
  - name: "first"
    description: "The first tool"
    inputSchema: { type: "object" }
    outputSchema: { type: "object" }
    nodes:
      - { id: "entry", type: "entry", next: "exit" }
      - { id: "exit", type: "exit" }
`;

function tool(name: string) {
  return {
    name,
    description: `The ${name} tool`,
    inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
    outputSchema: { type: 'object', properties: { by: { type: 'string' } } },
    nodes: [
      { id: 'entry', type: 'entry', next: 'say' },
      { id: 'say', type: 'transform', transform: { expr: `{"by": "${name}"}` }, next: 'exit' },
      { id: 'exit', type: 'exit' },
    ],
  };
}

describe('graph authoring: concurrent writers and paths out of --graphs (two built servers, SDK clients)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphs: string;
  let file: string;
  let outside: string;
  let a: Conn;
  let b: Conn;
  const call = async (c: Conn, name: string, args: Record<string, unknown>) => (await c.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
  const revision = async (c: Conn) => (await call(c, 'graph_server', { file: 'shared.yaml' })).structuredContent!.graphs[0].revision as string;
  const revisionOnDisk = () => createHash('sha256').update(fs.readFileSync(file, 'utf8'), 'utf8').digest('hex').slice(0, 16);
  const toolsInFile = () => (parse(fs.readFileSync(file, 'utf8')).tools as Array<{ name: string }>).map((t) => t.name);

  beforeAll(async () => {
    tmp = tempDir('wg-authoring-concurrency-');
    graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    file = path.join(graphs, 'shared.yaml');
    fs.writeFileSync(file, GRAPH);
    outside = path.join(tmp.dir, 'outside.yaml');
    fs.writeFileSync(outside, 'server: { name: "outside", version: "1" }\ntools: []\n');
    fs.symlinkSync(outside, path.join(graphs, 'link.yaml'));
    const args = ['--graphs', graphs, '--allow-root', graphs, '--graph-authoring'];
    [a, b] = await Promise.all([connectClient({ dataDir: path.join(tmp.dir, 'data'), args }), connectClient({ dataDir: path.join(tmp.dir, 'data'), args })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    tmp.cleanup();
  });

  it('two agents in two processes add on the same revision at once: one lands, the other is a conflict; both then serve it', async () => {
    const r0 = await revision(a);
    expect(await revision(b)).toBe(r0);
    const [fromA, fromB] = await Promise.all([
      call(a, 'graph_tool_add', { file: 'shared.yaml', revision: r0, tool: tool('by_a') }),
      call(b, 'graph_tool_add', { file: 'shared.yaml', revision: r0, tool: tool('by_b') }),
    ]);
    const results = [fromA, fromB];
    const won = results.filter((r) => !r.isError);
    const lost = results.filter((r) => r.isError);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.content[0]!.text).toMatch(new RegExp(`^conflict: .*shared\\.yaml changed since revision ${r0} was read \\(it is at ${won[0]!.structuredContent!.revision} now\\)`));
    const winner = won[0] === fromA ? 'by_a' : 'by_b';
    expect(toolsInFile()).toEqual(['first', winner]);
    expect(fs.readFileSync(file, 'utf8').startsWith(GRAPH)).toBe(true);
    // The writer serves it at once; the other process hears of the file and serves it too.
    expect((await call(won[0] === fromA ? a : b, winner, {})).structuredContent).toEqual({ by: winner });
    const other = won[0] === fromA ? b : a;
    await waitFor('the other process reloaded the file', async () => (await other.client.listTools()).tools.some((t) => t.name === winner));
    expect((await call(other, winner, {})).structuredContent).toEqual({ by: winner });
    // The loser reads again and lands its change on what the file holds now.
    const retry = await call(other, 'graph_tool_add', { file: 'shared.yaml', revision: await revision(other), tool: tool(winner === 'by_a' ? 'by_b' : 'by_a') });
    expect(retry.isError).toBeFalsy();
    expect(toolsInFile().sort()).toEqual(['by_a', 'by_b', 'first']);
  }, 60_000);

  it('five calls of one agent on one revision at once: exactly one lands, four conflicts, the file holds one new tool', async () => {
    // The previous test's last write may have come from the other process: graph_server answers the file as it is
    // on disk all the same (this process's watcher may not have reloaded it yet).
    const r = await revision(a);
    expect(r).toBe(revisionOnDisk());
    const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
    const results = await Promise.all(names.map((n) => call(a, 'graph_tool_add', { file: 'shared.yaml', revision: r, tool: tool(n) })));
    expect(results.filter((x) => !x.isError)).toHaveLength(1);
    const conflicts = results.filter((x) => x.isError);
    expect(conflicts).toHaveLength(4);
    for (const c of conflicts) expect(c.content[0]!.text).toMatch(/^conflict: /);
    const landed = names.filter((n) => toolsInFile().includes(n));
    expect(landed).toHaveLength(1);
    expect(results[names.indexOf(landed[0]!)]!.isError).toBeFalsy();
  }, 60_000);

  it('process b writes; process a at once answers the file as b left it (graph_server, graph_tool_get) and an update on that revision lands', async () => {
    const added = await call(b, 'graph_tool_add', { file: 'shared.yaml', revision: await revision(b), tool: tool('from_b') });
    expect(added.isError).toBeFalsy();
    const rb = added.structuredContent!.revision as string;
    expect(rb).toBe(revisionOnDisk());
    // No wait for a's watcher: its reads catch up with the disk first.
    const server = (await call(a, 'graph_server', { file: 'shared.yaml' })).structuredContent!.graphs[0];
    expect(server.revision).toBe(rb);
    expect(server.tools).toContain('from_b');
    const got = await call(a, 'graph_tool_get', { name: 'from_b' });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent!.revision).toBe(rb);
    const updated = await call(a, 'graph_tool_update', { name: 'from_b', revision: rb, tool: { ...tool('from_b'), description: 'changed by a' } });
    expect(updated.isError).toBeFalsy();
    expect(updated.structuredContent!.revision).toBe(revisionOnDisk());
    expect((parse(fs.readFileSync(file, 'utf8')).tools as Array<{ name: string; description: string }>).find((t) => t.name === 'from_b')!.description).toBe('changed by a');
    // b's update on the revision it wrote is now a real conflict, naming a's revision.
    const stale = await call(b, 'graph_tool_update', { name: 'from_b', revision: rb, tool: tool('from_b') });
    expect(stale.content[0]!.text).toMatch(new RegExp(`^conflict: .*it is at ${updated.structuredContent!.revision} now`));
  }, 60_000);

  it('a symlink in the --graphs folder to a file outside it, and a .. path out of it: refused, the file untouched', async () => {
    const before = fs.readFileSync(outside, 'utf8');
    const viaLink = await call(a, 'graph_tool_add', { file: 'link.yaml', revision: 'any', tool: tool('via_link') });
    expect(viaLink.content[0]!.text).toMatch(/^invalid_arguments: file: '.*outside\.yaml' is not a graph file this server serves/);
    const viaDots = await call(a, 'graph_tool_add', { file: '../outside.yaml', revision: 'any', tool: tool('via_dots') });
    expect(viaDots.content[0]!.text).toMatch(/^invalid_arguments: file: '.*outside\.yaml' is not a graph file this server serves/);
    const absolute = await call(a, 'graph_tool_add', { file: outside, revision: 'any', tool: tool('absolute') });
    expect(absolute.content[0]!.text).toMatch(/^invalid_arguments: file: '.*outside\.yaml' is not a graph file this server serves/);
    expect(fs.readFileSync(outside, 'utf8')).toBe(before);
  }, 60_000);
});
