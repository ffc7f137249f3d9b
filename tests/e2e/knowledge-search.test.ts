import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, connectClient, tempDir } from './helpers/server-process';

/**
 * search_nodes and get_node's neighbours through the built server and the SDK's client, then
 * `workgraph knowledge search` on the same data dir.
 */
function cli(args: string[]) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('search_nodes (built server, files) and workgraph knowledge search', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => (tmp = tempDir('wg-e2e-ksearch-')));
  afterAll(() => tmp.cleanup());

  it('finds, ranks, pages and walks to the context; the CLI answers the same', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const conn = await connectClient({ dataDir });
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await conn.client.callTool({ name, arguments: args })) as CallToolResult;
      return { r, out: r.structuredContent as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    try {
      await call('add_nodes', {
        projectContext: 'demo',
        nodes: [
          { id: 'd1', thought: 'We decided retries use exponential backoff', role: 'actor', tags: ['decision'] },
          { id: 'd2', thought: 'Retry budget is three attempts', role: 'critic', parents: ['d1'] },
          { id: 'd3', thought: 'Summary: retrying with backoff', role: 'summary', summarizedSegment: ['d1', 'd2'], parents: ['d1'] },
        ],
      });
      const { r, out } = await call('search_nodes', { projectContext: 'demo', query: 'retries "exponential backoff"' });
      expect(r.isError).toBeFalsy();
      expect(out.hits.map((h: { id: string }) => h.id)).toEqual(['d1']);
      expect(out.hits[0].snippet).toContain('**exponential** **backoff**');
      const all = await call('search_nodes', { projectContext: 'demo', query: 'retry', limit: 1 });
      expect(all.out.total).toBe(3);
      expect(all.out.nextCursor).toEqual(expect.any(String));
      const bad = await call('search_nodes', { projectContext: 'demo', query: 'the' });
      expect(bad.r.isError).toBe(true);
      expect(JSON.stringify(bad.r.content)).toMatch(/no word to look for/);
      // Past a search limit (a term 301 times: PostgreSQL would keep 255 of its positions) the add is refused as one
      // line naming the field and the limit, on every store; nothing is added.
      const over = await call('add_nodes', { projectContext: 'demo', nodes: [{ id: 'd4', thought: 'cat '.repeat(300) + 'cat nap', role: 'actor' }] });
      expect(over.r.isError).toBe(true);
      expect(over.r.structuredContent).toBeUndefined();
      expect(over.r._meta).toEqual({ 'workgraph/errorCode': 'invalid_arguments' });
      expect(over.r.content).toEqual([{ type: 'text', text: "invalid_arguments: nodes/0/thought: a word can be searched at most 250 times in one node ('cat' appears 301 times); split it into several nodes; nothing was added" }]);
      expect((await call('search_nodes', { projectContext: 'demo', query: 'cat' })).out.hits).toEqual([]);
      const ctx = await call('get_node', { projectContext: 'demo', id: 'd1', neighbours: true });
      expect(ctx.out.neighbours.children.map((b: { id: string }) => b.id)).toEqual(['d2', 'd3']);
      expect(ctx.out.neighbours.summaries.map((b: { id: string }) => b.id)).toEqual(['d3']);
    } finally {
      await conn.close();
    }
    // The clean shutdown wrote the index's tail (the three nodes, in memory until then) as segments: the manifest
    // covers the whole graph.
    const projectDir = path.join(dataDir, 'projects', 'demo');
    const covered = () => {
      const m = JSON.parse(fs.readFileSync(path.join(projectDir, 'knowledge_graph.search', 'manifest.json'), 'utf8'));
      return [m.docs, m.graph.size];
    };
    for (let i = 0; i < 100 && covered()[0] !== 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(covered()).toEqual([3, fs.statSync(path.join(projectDir, 'knowledge_graph.ndjson')).size]);
    const json = cli(['knowledge', 'search', 'demo', 'retry', 'budget', '--data-dir', dataDir, '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).hits.map((h: { id: string }) => h.id)).toEqual(['d2']);
    const text = cli(['knowledge', 'search', '*', 'backoff', '--data-dir', dataDir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/2 node\(s\) of every project match/);
    expect(text.stdout).toContain('demo/d1');
    // Off a terminal the matches are bracketed, the thought's characters as written (no \* escapes).
    expect(text.stdout).toMatch(/\[[Bb]ackoff\]/);
    const refused = cli(['knowledge', 'search', 'demo', 'the', '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^workgraph knowledge search: query: 'the' has no word to look for/);
    const limit = cli(['knowledge', 'search', 'demo', 'retry', '--data-dir', dataDir, '--limit', '0']);
    expect(limit.code).toBe(1);
    expect(limit.stderr).toMatch(/--limit: expected a whole number from 1 to 100/);
  });

  it("the CLI's search rebuilds a missing, damaged or stale index and says so in one stderr line; stdout stays the JSON answer", async () => {
    const dataDir = path.join(tmp.dir, 'data-rebuild');
    const conn = await connectClient({ dataDir });
    try {
      const added = await conn.client.callTool({
        name: 'add_nodes',
        arguments: { projectContext: 'notes', nodes: [{ id: 'r1', thought: 'Redis holds the sessions', role: 'actor' }, { id: 'r2', thought: 'Memcached was slower', role: 'critic' }] },
      });
      expect(added.isError).toBeFalsy();
    } finally {
      await conn.close();
    }
    const projectDir = path.join(dataDir, 'projects', 'notes');
    const searchDir = path.join(projectDir, 'knowledge_graph.search');
    const search = () => {
      const r = cli(['knowledge', 'search', 'notes', 'redis', '--data-dir', dataDir, '--json']);
      expect(r.code).toBe(0);
      return { stderr: r.stderr, ids: JSON.parse(r.stdout).hits.map((h: { id: string }) => h.id) };
    };
    const rebuilt = (reason: RegExp, nodes: number) =>
      new RegExp(`^workgraph knowledge search: knowledge search index rebuilt from the graph \\(project: notes, graph: \\S+knowledge_graph\\.ndjson, reason: ${reason.source}, nodes: ${nodes}, ms: \\d+\\)\\n$`);
    // The clean shutdown wrote the index whole: nothing to say.
    for (let i = 0; i < 100 && !fs.existsSync(path.join(searchDir, 'manifest.json')); i++) await new Promise((r) => setTimeout(r, 100));
    expect(search()).toEqual({ stderr: '', ids: ['r1'] });

    // Missing: the folder removed.
    fs.rmSync(searchDir, { recursive: true, force: true });
    const missing = search();
    expect(missing.ids).toEqual(['r1']);
    expect(missing.stderr).toMatch(rebuilt(/no index/, 2));
    // Rebuilt once: the next search is silent.
    expect(search()).toEqual({ stderr: '', ids: ['r1'] });

    // Damaged: a segment's bytes overwritten.
    const segment = fs.readdirSync(searchDir).find((f) => f.endsWith('.bin'))!;
    const bytes = fs.readFileSync(path.join(searchDir, segment));
    bytes.fill(0x5a, 0, Math.min(64, bytes.length));
    fs.writeFileSync(path.join(searchDir, segment), bytes);
    const damaged = search();
    expect(damaged.ids).toEqual(['r1']);
    expect(damaged.stderr).toMatch(rebuilt(/\S+\.bin: .+/, 2));

    // Stale: a line appended to the graph by another program.
    fs.appendFileSync(path.join(projectDir, 'knowledge_graph.ndjson'), JSON.stringify({ id: 'r3', project: 'notes', projectContext: 'notes', thought: 'Redis again, by hand', role: 'actor', tags: [], artifacts: [], parents: [], createdAt: '2026-12-04T00:00:00.000Z' }) + '\n');
    const stale = search();
    expect(stale.ids.sort()).toEqual(['r1', 'r3']);
    expect(stale.stderr).toMatch(rebuilt(/the graph changed .+/, 3));
  });

  it('the CLI tells a project or data dir with no knowledge graph apart from a search without a match', async () => {
    const dataDir = path.join(tmp.dir, 'data-missing');
    const root = path.join(tmp.dir, 'plan');
    fs.mkdirSync(root);
    const conn = await connectClient({ dataDir, args: ['--allow-root', root] });
    try {
      await conn.client.callTool({ name: 'add_nodes', arguments: { projectContext: 'notes', nodes: [{ id: 'n1', thought: 'Redis holds the sessions', role: 'actor' }] } });
      const plan = await conn.client.callTool({ name: 'init_project_graph', arguments: { projectName: 'plan', projectRoot: root, nodes: [{ id: 't1', title: 'Only tasks here' }] } });
      expect(plan.isError).toBeFalsy();
    } finally {
      await conn.close();
    }
    const noMatch = cli(['knowledge', 'search', 'notes', 'memcached', '--data-dir', dataDir]);
    expect([noMatch.code, noMatch.stderr, noMatch.stdout]).toEqual([0, '', "No knowledge node of project 'notes' matches memcached.\n"]);
    const noneAnywhere = cli(['knowledge', 'search', '*', 'memcached', '--data-dir', dataDir]);
    expect([noneAnywhere.code, noneAnywhere.stdout]).toEqual([0, 'No knowledge node in any project matches memcached.\n']);
    const projects = path.join(dataDir, 'projects');
    // A mistyped project, a project with only a task graph, a mistyped data dir: one line naming where it looked, exit 1.
    for (const [args, what, where] of [
      [['knowledge', 'search', 'notez', 'redis', '--data-dir', dataDir], "search: project 'notez'", projects],
      [['knowledge', 'search', 'plan', 'redis', '--json', '--data-dir', dataDir], "search: project 'plan'", projects],
      [['knowledge', 'search', 'notes', 'redis', '--data-dir', `${dataDir}-typo`], "search: project 'notes'", `${projects.replace(/data-missing/, 'data-missing-typo')}`],
      [['knowledge', 'backups', 'notez', '--data-dir', dataDir], "backups: project 'notez'", projects],
    ] as const) {
      const r = cli([...args]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`workgraph knowledge ${what} has no knowledge graph (searched ${where}; data dir from --data-dir, WORKGRAPH_DATA_DIR or the default; \`workgraph projects\` lists what is there)\n`);
    }
    const empty = cli(['knowledge', 'search', '*', 'redis', '--data-dir', `${dataDir}-typo`]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^workgraph knowledge search: no project has a knowledge graph \(searched \S+data-missing-typo\/projects;/);
    // Nothing was made where it looked.
    expect(fs.existsSync(`${dataDir}-typo`)).toBe(false);
    const found = cli(['knowledge', 'search', 'notes', 'redis', '--data-dir', dataDir]);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('n1');
  });
});
