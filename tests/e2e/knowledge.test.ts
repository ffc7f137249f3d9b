import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateMessageRequestSchema, type CallToolResult, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';
import { OutputSchemaChecker } from './helpers/output-schemas';

/** The knowledge module through the built server and the SDK's real client: add, page, delete with dependents, restore, summaries. */

type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SAMPLED = 'Sampled summary: the remaining work is about caching and retries.';

function text(result: CallToolResult): string {
  return (result.content as Array<{ type: string; text: string }>)[0].text;
}

describe('knowledge module e2e (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let dataDir: string;
  let plain: Conn;
  let sampling: Conn;
  let schemas: OutputSchemaChecker;
  const samplingRequests: CreateMessageRequest['params'][] = [];

  async function call(conn: Conn, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const result = (await conn.client.callTool({ name, arguments: args })) as CallToolResult;
    schemas.check(name, result);
    return result;
  }
  async function ok(conn: Conn, name: string, args: Record<string, unknown>): Promise<Structured> {
    const result = await call(conn, name, args);
    if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
    return result.structuredContent as Structured;
  }
  const projectDir = (id: string) => path.join(dataDir, 'projects', id);
  const graphIds = (id: string) =>
    fs
      .readFileSync(path.join(projectDir(id), 'knowledge_graph.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).id as string);

  beforeAll(async () => {
    tmp = tempDir('wg-e2e-knowledge-');
    dataDir = path.join(tmp.dir, 'data');
    plain = await connectClient({ dataDir });
    // A second server on the same data dir, whose client offers sampling.
    sampling = await connectClient({ dataDir, capabilities: { sampling: {} } });
    sampling.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      samplingRequests.push(request.params);
      return { model: 'e2e-model', role: 'assistant', content: { type: 'text', text: SAMPLED } };
    });
    schemas = await OutputSchemaChecker.fromClient(plain.client);
  });
  afterAll(async () => {
    await plain?.close();
    await sampling?.close();
    tmp.cleanup();
  });

  it('adds nodes with parents and derives children when read', async () => {
    const added = await ok(plain, 'add_nodes', {
      projectContext: '/home/me/work/Agent App/',
      nodes: [
        { id: 'root', thought: 'Plan: split the parser from the evaluator.\nDetails follow.', role: 'actor', tags: ['plan'] },
        { id: 'review', thought: 'The split leaves the cache shared; fine.', role: 'critic', tags: ['review'], parents: ['root'], verdict: 'approved' },
        { id: 'followup', thought: 'Implement the parser module.', role: 'actor', tags: ['plan', 'impl'], parents: ['review'] },
        { thought: 'An unrelated idea about logging.', role: 'actor', tags: ['idea'] },
      ],
    });
    expect(added.project).toBe('agent-app');
    expect(added.ids.slice(0, 3)).toEqual(['root', 'review', 'followup']);
    expect(added.ids[3]).toMatch(/^[0-9a-f-]{36}$/);

    const got = await ok(plain, 'get_node', { projectContext: 'agent-app', id: 'root' });
    expect(got.node).toMatchObject({ id: 'root', role: 'actor', parents: [], children: ['review'], project: 'agent-app' });
    // The same folder written another way is the same project; another folder with the same name is another one.
    expect((await ok(plain, 'get_node', { projectContext: '/home/me/work/./Agent App', id: 'review' })).node.children).toEqual(['followup']);
    const elsewhere = await call(plain, 'get_node', { projectContext: 'C:\\work\\Agent App\\', id: 'review' });
    expect(text(elsewhere)).toMatch(/^not_found: .*agent-app-[0-9a-f]{8}/);

    // Adds append only: no line carries children.
    const lines = fs.readFileSync(path.join(projectDir('agent-app'), 'knowledge_graph.ndjson'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => !('children' in JSON.parse(l)))).toBe(true);

    const badParent = await call(plain, 'add_nodes', { projectContext: 'agent-app', nodes: [{ thought: 'x', role: 'actor', parents: ['nope'] }] });
    expect(badParent.isError).toBe(true);
    expect(text(badParent)).toContain('nope');
    expect(graphIds('agent-app')).toHaveLength(4);
  });

  it('pages list_nodes newest first with a cursor, and filters by tags and role', async () => {
    const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
    await ok(plain, 'add_nodes', { projectContext: 'paging', nodes: ids.map((id, i) => ({ id, thought: `thought ${i}\nsecond line`, role: i % 2 ? 'critic' : 'actor', tags: [`t${i % 3}`] })) });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok(plain, 'list_nodes', { projectContext: 'paging', limit: 3, ...(cursor ? { cursor } : {}) });
      pages++;
      expect(page.nodes.length).toBeLessThanOrEqual(3);
      seen.push(...page.nodes.map((n: Structured) => n.id));
      if (page.nodes.length) expect(page.nodes[0].thought).not.toContain('\n'); // first line only
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());

    const critics = await ok(plain, 'list_nodes', { projectContext: 'paging', role: 'critic' });
    expect(critics.nodes.map((n: Structured) => n.id)).toEqual(['p5', 'p3', 'p1']);
    const tagged = await ok(plain, 'list_nodes', { projectContext: 'paging', tags: ['t0'] });
    expect(tagged.nodes.map((n: Structured) => n.id)).toEqual(['p6', 'p3', 'p0']);
    expect(tagged.malformedLines).toBe(0);
  });

  it('delete with dependents deletes nothing and lists them; confirming deletes all with a backup; restore brings them back', async () => {
    const before = fs.readFileSync(path.join(projectDir('agent-app'), 'knowledge_graph.ndjson'), 'utf8');

    const refused = await ok(plain, 'delete_nodes', { projectContext: 'agent-app', nodeIds: ['root'], reason: 'abandoned plan' });
    expect(refused).toMatchObject({ success: false, deletedNodeIds: [], backupPath: null });
    expect(refused.dependentNodes.map((d: Structured) => d.nodeId).sort()).toEqual(['followup', 'review']); // transitive
    expect(refused.dependentNodes.find((d: Structured) => d.nodeId === 'review')).toMatchObject({
      thought: 'The split leaves the cache shared; fine.',
      role: 'critic',
      tags: ['review'],
      createdAt: expect.any(String),
    });
    expect(refused.warnings).toContain('Node root has 2 dependent node(s)');
    expect(fs.readFileSync(path.join(projectDir('agent-app'), 'knowledge_graph.ndjson'), 'utf8')).toBe(before);
    expect(fs.existsSync(path.join(projectDir('agent-app'), 'knowledge_graph.deleted.ndjson'))).toBe(false);

    const unknown = await call(plain, 'delete_nodes', { projectContext: 'agent-app', nodeIds: ['root', 'ghost'] });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('ghost');

    const confirmed = await ok(plain, 'delete_nodes', { projectContext: 'agent-app', nodeIds: ['root', 'review', 'followup'], reason: 'abandoned plan' });
    expect(confirmed.success).toBe(true);
    expect([...confirmed.deletedNodeIds].sort()).toEqual(['followup', 'review', 'root']);
    expect(confirmed.dependentNodes).toEqual([]);
    expect(confirmed.backupPath).toMatch(/knowledge_graph_\d{8}-\d{6}(-\d+)?\.ndjson$/);
    expect(fs.readFileSync(confirmed.backupPath, 'utf8')).toBe(before); // the graph as it was
    expect(graphIds('agent-app')).toHaveLength(1);
    const records = fs
      .readFileSync(path.join(projectDir('agent-app'), 'knowledge_graph.deleted.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.nodeId).sort()).toEqual(['followup', 'review', 'root']);
    expect(records[0]).toMatchObject({ project: 'agent-app', reason: 'abandoned plan', timestamp: expect.any(String), nodeData: expect.any(Object) });
    expect((await call(plain, 'get_node', { projectContext: 'agent-app', id: 'root' })).isError).toBe(true);
    expect((await ok(plain, 'list_nodes', { projectContext: 'agent-app' })).nodes).toHaveLength(1);

    const restored = await ok(plain, 'restore_nodes', { projectContext: 'agent-app', nodeIds: ['root', 'review', 'followup'] });
    expect(restored.success).toBe(true);
    expect([...restored.restoredNodeIds].sort()).toEqual(['followup', 'review', 'root']);
    expect(restored.droppedParents).toEqual([]);
    expect((await ok(plain, 'get_node', { projectContext: 'agent-app', id: 'root' })).node.children).toEqual(['review']);
    expect((await ok(plain, 'get_node', { projectContext: 'agent-app', id: 'followup' })).node.parents).toEqual(['review']);
    expect(fs.readFileSync(path.join(projectDir('agent-app'), 'knowledge_graph.deleted.ndjson'), 'utf8').trim()).toBe('');

    const twice = await call(plain, 'restore_nodes', { projectContext: 'agent-app', nodeIds: ['root'] });
    expect(twice.isError).toBe(true);
    expect(text(twice)).toContain('root');
  });

  async function addSummarized(conn: Conn, project: string): Promise<void> {
    await ok(conn, 'add_nodes', {
      projectContext: project,
      nodes: [
        { id: 'a', thought: 'Add a cache in front of the store. It halves reads.', role: 'actor' },
        { id: 'b', thought: 'Retry failed writes with backoff. Three tries.', role: 'actor' },
        { id: 'c', thought: 'Typo node, to be removed.', role: 'actor' },
        { id: 'sum', thought: 'Old summary of a, b and c.', role: 'summary', summarizedSegment: ['a', 'b', 'c'] },
      ],
    });
  }

  it('recalculates an affected summary through MCP sampling when the client offers it', async () => {
    await addSummarized(sampling, 'sampled');
    const result = await ok(sampling, 'delete_nodes', { projectContext: 'sampled', nodeIds: ['c'], recalculateSummaries: true });
    expect(result.success).toBe(true);
    expect(result.summaries).toEqual([
      expect.objectContaining({ summaryId: 'sum', status: 'recalculated', method: 'sampling', remainingNodeIds: ['a', 'b'] }),
    ]);
    expect(result.summaries[0].message).toMatch(/sampling/i);
    const sum = (await ok(sampling, 'get_node', { projectContext: 'sampled', id: 'sum' })).node;
    expect(sum.thought).toBe(SAMPLED);
    expect(sum.summarizedSegment).toEqual(['a', 'b']);
    // The client's LLM was asked about the remaining nodes, not the deleted one.
    expect(samplingRequests).toHaveLength(1);
    const asked = JSON.stringify(samplingRequests[0].messages);
    expect(asked).toContain('Add a cache in front of the store');
    expect(asked).toContain('Retry failed writes with backoff');
    expect(asked).not.toContain('Typo node');
  });

  it('falls back to the extractive summary for a client without sampling', async () => {
    await addSummarized(plain, 'extracted');
    const result = await ok(plain, 'delete_nodes', { projectContext: 'extracted', nodeIds: ['c'], recalculateSummaries: true });
    expect(result.summaries).toEqual([
      expect.objectContaining({ summaryId: 'sum', status: 'recalculated', method: 'extractive', remainingNodeIds: ['a', 'b'] }),
    ]);
    const sum = (await ok(plain, 'get_node', { projectContext: 'extracted', id: 'sum' })).node;
    expect(sum.thought).not.toMatch(/Summary of|\n/); // one line of real content, no header
    expect(sum.thought).toContain('Add a cache in front of the store.');
    expect(sum.thought).toContain('Retry failed writes with backoff.');
    expect(sum.thought).not.toContain('It halves reads'); // first sentence only
    expect(sum.summarizedSegment).toEqual(['a', 'b']);
    expect(samplingRequests).toHaveLength(1); // the sampling client was not asked
    const original = sum.summaryHistory[0].thought;
    expect(sum.summaryHistory[0]).toMatchObject({ summarizedSegment: ['a', 'b', 'c'], deletedNodeIds: ['c'] });
    // Restoring c brings the previous text and segment back.
    const restored = await ok(plain, 'restore_nodes', { projectContext: 'extracted', nodeIds: ['c'] });
    expect(restored.restoredSummaryIds).toEqual(['sum']);
    const back = (await ok(plain, 'get_node', { projectContext: 'extracted', id: 'sum' })).node;
    expect(back).toMatchObject({ thought: original, summarizedSegment: ['a', 'b', 'c'] });
    await ok(plain, 'delete_nodes', { projectContext: 'extracted', nodeIds: ['c'], recalculateSummaries: true });

    // Deleting the rest leaves the summary with nothing: reported, kept, not deleted.
    const emptied = await ok(plain, 'delete_nodes', { projectContext: 'extracted', nodeIds: ['a', 'b'], recalculateSummaries: true });
    expect(emptied.summaries).toEqual([expect.objectContaining({ summaryId: 'sum', status: 'empty', remainingNodeIds: [] })]);
    expect(graphIds('extracted')).toEqual(['sum']);
  });

  it('falls back to the extractive summary when the client fails the sampling request', async () => {
    const failing = await connectClient({ dataDir, capabilities: { sampling: {} } });
    failing.client.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw new Error('the user declined the sampling request');
    });
    try {
      await addSummarized(failing, 'declined');
      const result = (await failing.client.callTool({
        name: 'delete_nodes',
        arguments: { projectContext: 'declined', nodeIds: ['c'], recalculateSummaries: true },
      })) as CallToolResult;
      schemas.check('delete_nodes', result);
      const s = result.structuredContent as Structured;
      expect(s.success).toBe(true);
      expect(s.summaries).toEqual([expect.objectContaining({ summaryId: 'sum', status: 'recalculated', method: 'extractive' })]);
      expect(s.summaries[0].message).toMatch(/sampling failed/);
      expect((await ok(failing, 'get_node', { projectContext: 'declined', id: 'sum' })).node.thought).toContain('Add a cache in front of the store.');
    } finally {
      await failing.close();
    }
  });

  it('refuses a list cursor made before a delete rewrote the file', async () => {
    await ok(plain, 'add_nodes', { projectContext: 'cursors', nodes: ['x1', 'x2', 'x3', 'x4'].map((id) => ({ id, thought: id, role: 'actor' })) });
    const first = await ok(plain, 'list_nodes', { projectContext: 'cursors', limit: 2 });
    expect(first.nextCursor).toEqual(expect.any(String));
    await ok(plain, 'delete_nodes', { projectContext: 'cursors', nodeIds: ['x4'] });
    const stale = await call(plain, 'list_nodes', { projectContext: 'cursors', limit: 2, cursor: first.nextCursor });
    expect(stale.isError).toBe(true);
    expect(text(stale)).toMatch(/list again without a cursor/);
  });

  it('reports an affected summary without recalculating it when not asked', async () => {
    await addSummarized(plain, 'untouched');
    const result = await ok(plain, 'delete_nodes', { projectContext: 'untouched', nodeIds: ['c'] });
    expect(result.summaries).toEqual([expect.objectContaining({ summaryId: 'sum', status: 'not_recalculated' })]);
    expect((await ok(plain, 'get_node', { projectContext: 'untouched', id: 'sum' })).node.thought).toBe('Old summary of a, b and c.');
  });

  it('every structuredContent seen matched its outputSchema', () => {
    expect(() => schemas.check('list_nodes', { structuredContent: { project: 'x', nodes: 'no' } })).toThrow(/does not match outputSchema/);
    for (const tool of ['add_nodes', 'list_nodes', 'get_node', 'delete_nodes', 'restore_nodes']) {
      expect(schemas.checked.get(tool)).toBeGreaterThan(0);
    }
  });
});
