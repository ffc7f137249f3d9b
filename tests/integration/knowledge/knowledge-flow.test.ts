import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { makeKnowledgeEnv, type KnowledgeEnv } from './support/knowledge-env';
import { validRecord, validStoredNode } from './support/knowledge-node-schema';
import { AlreadyExistsError, InvalidArgumentsError, NotFoundError } from '../../../src/kernel/errors';

/**
 * The knowledge graph's use cases on real files: adds, lists and cursors, children, deletes with dependents and
 * backups, restores, malformed lines. (Summaries on delete and restore: knowledge-summaries.test.ts.)
 */

const CTX = '/home/me/work/Demo App/';
const P = 'demo-app';

describe('knowledge graph on real files', () => {
  let env: KnowledgeEnv;
  beforeEach(async () => {
    env = await makeKnowledgeEnv();
  });
  afterEach(() => env.cleanup());

  async function chain(ids: string[]) {
    for (let i = 0; i < ids.length; i++) {
      await env.add.execute({ projectContext: CTX, nodes: [{ id: ids[i], thought: `thought ${ids[i]}`, role: 'actor', parents: i ? [ids[i - 1]!] : [] }] });
    }
  }

  it('adds nodes (ids generated when absent) as schema-valid lines without children', async () => {
    const out = await env.add.execute({
      projectContext: CTX,
      nodes: [
        { thought: 'first', role: 'actor', tags: ['plan'] },
        { id: 'crit-1', thought: 'looks fine', role: 'critic', verdict: 'approved', target: 'crit-0', parents: [] },
      ],
    });
    expect(out.project).toBe(P);
    expect(out.ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.ids[1]).toBe('crit-1');
    const lines = await env.readLines(P);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(validStoredNode(JSON.parse(l))).toBe(true);
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('children');
    expect(JSON.parse(lines[0]!).createdAt).toBe('2025-03-01T12:00:00.000Z');
  });

  it('refuses unknown parents, later-in-call parents and taken ids, adding nothing', async () => {
    await expect(env.add.execute({ projectContext: CTX, nodes: [{ thought: 'x', role: 'actor', parents: ['nope'] }] })).rejects.toThrow(
      /nope.*do not exist/,
    );
    await expect(
      env.add.execute({
        projectContext: CTX,
        nodes: [
          { id: 'b', thought: 'x', role: 'actor', parents: ['a'] },
          { id: 'a', thought: 'y', role: 'actor' },
        ],
      }),
    ).rejects.toThrow(InvalidArgumentsError);
    await env.add.execute({
      projectContext: CTX,
      nodes: [
        { id: 'a', thought: 'y', role: 'actor' },
        { id: 'b', thought: 'x', role: 'actor', parents: ['a'] },
      ],
    });
    await expect(env.add.execute({ projectContext: CTX, nodes: [{ id: 'a', thought: 'again', role: 'actor' }] })).rejects.toThrow(
      AlreadyExistsError,
    );
    expect(await env.readLines(P)).toHaveLength(2);
  });

  it('lists newest first with tag/role filters and a cursor over pages', async () => {
    for (let i = 0; i < 25; i++) {
      env.clock.advance(1000);
      await env.add.execute({
        projectContext: CTX,
        nodes: [{ id: `n${i}`, thought: `line one of ${i}\nmore`, role: i % 5 === 0 ? 'critic' : 'actor', tags: i % 2 ? ['odd'] : ['even'] }],
      });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await env.list.execute({ projectContext: CTX, limit: 10, cursor });
      seen.push(...page.nodes.map((n) => n.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `n${24 - i}`));

    const first = await env.list.execute({ projectContext: CTX, limit: 3 });
    expect(first.nodes[0]).toEqual({ id: 'n24', role: 'actor', tags: ['even'], createdAt: expect.any(String), thought: 'line one of 24' });

    const odd = await env.list.execute({ projectContext: CTX, tags: ['odd'], role: 'actor', limit: 100 });
    expect(odd.nodes.map((n) => n.id)).toEqual(['n23', 'n21', 'n19', 'n17', 'n13', 'n11', 'n9', 'n7', 'n3', 'n1']);
    expect(odd.nextCursor).toBeNull();

    const critics = await env.list.execute({ projectContext: CTX, role: 'critic' });
    expect(critics.nodes.map((n) => n.id)).toEqual(['n20', 'n15', 'n10', 'n5', 'n0']);
  });

  it('refuses a foreign cursor and a cursor from before a rebuild', async () => {
    await chain(['a', 'b', 'c', 'd']);
    const page = await env.list.execute({ projectContext: CTX, limit: 2 });
    expect(page.nextCursor).not.toBeNull();
    await expect(env.list.execute({ projectContext: CTX, cursor: 'garbage' })).rejects.toThrow(/cursor/);
    await env.del.execute({ projectContext: CTX, nodeIds: ['d'] });
    await expect(env.list.execute({ projectContext: CTX, cursor: page.nextCursor! })).rejects.toThrow(/rebuilt/);
  });

  it('derives children from the other nodes parents', async () => {
    await chain(['a', 'b']);
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'c', thought: 'c', role: 'critic', parents: ['a'] }] });
    const { node } = await env.get.execute({ projectContext: CTX, id: 'a' });
    expect(node.children).toEqual(['b', 'c']);
    expect((await env.get.execute({ projectContext: CTX, id: 'c' })).node.children).toEqual([]);
    await expect(env.get.execute({ projectContext: CTX, id: 'zz' })).rejects.toThrow(NotFoundError);
  });

  it('refuses unknown ids, naming them, and deletes nothing', async () => {
    await chain(['a', 'b']);
    await expect(env.del.execute({ projectContext: CTX, nodeIds: ['b', 'ghost', 'other'] })).rejects.toThrow(
      /ghost, other.*nothing was deleted/,
    );
    await expect(env.del.execute({ projectContext: '/elsewhere/other-project', nodeIds: ['b'] })).rejects.toThrow(
      /not found in project 'other-project'/,
    );
    expect(await env.readLines(P)).toHaveLength(2);
    await expect(fs.access(path.join(env.projectDir(P), 'backup'))).rejects.toThrow();
  });

  it('refuses a delete with dependents, then deletes all when confirmed', async () => {
    await chain(['a', 'b', 'c']);
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'keep', thought: 'k', role: 'actor' }] });
    const refused = await env.del.execute({ projectContext: CTX, nodeIds: ['a'], reason: 'junk' });
    expect(refused.success).toBe(false);
    expect(refused.backupPath).toBeNull();
    expect(refused.deletedNodeIds).toEqual([]);
    expect(refused.warnings).toEqual(['Node a has 2 dependent node(s)']);
    expect(refused.dependentNodes.map((d) => d.nodeId).sort()).toEqual(['b', 'c']);
    expect(refused.dependentNodes[0]).toEqual({ nodeId: 'b', thought: 'thought b', tags: [], role: 'actor', createdAt: expect.any(String) });
    expect(await env.readLines(P)).toHaveLength(4);
    expect(env.logger.entries.some((e) => e.msg.includes('dependents found'))).toBe(true);

    const done = await env.del.execute({ projectContext: CTX, nodeIds: ['a', 'b', 'c'], reason: 'junk' });
    expect(done.success).toBe(true);
    expect(done.deletedNodeIds).toEqual(['a', 'b', 'c']);
    expect(done.backupPath).toMatch(/backup[/\\]knowledge_graph_20250301-120000\.ndjson$/);
    expect((await env.readLines(P)).map((l) => JSON.parse(l).id)).toEqual(['keep']);

    // The backup holds the graph as it was.
    const backup = (await fs.readFile(done.backupPath!, 'utf8')).split('\n').filter(Boolean);
    expect(backup.map((l) => JSON.parse(l).id)).toEqual(['a', 'b', 'c', 'keep']);

    // Deletion records: one per node, schema-valid, with the node data.
    const records = (await env.readLines(P, 'knowledge_graph.deleted.ndjson')).map((l) => JSON.parse(l));
    expect(records.map((r) => r.nodeId)).toEqual(['a', 'b', 'c']);
    for (const r of records) {
      expect(validRecord(r)).toBe(true);
      expect(r).toMatchObject({ project: P, reason: 'junk', timestamp: '2025-03-01T12:00:00.000Z' });
    }
    expect(records[1].nodeData).toMatchObject({ id: 'b', parents: ['a'], thought: 'thought b' });
    expect(env.logger.entries.find((e) => e.msg === 'knowledge nodes deleted')?.fields).toMatchObject({
      project: P,
      nodeIds: ['a', 'b', 'c'],
      reason: 'junk',
    });
    expect(env.logger.entries.some((e) => e.msg === 'knowledge backup created')).toBe(true);
  });

  it('finds dependents written before their parent (hand-edited file) and deletes them when confirmed', async () => {
    await env.add.execute({
      projectContext: CTX,
      nodes: [
        { id: 'root', thought: 'r', role: 'actor' },
        { id: 'leaf', thought: 'l', role: 'actor', parents: ['root'] },
      ],
    });
    await env.del.execute({ projectContext: CTX, nodeIds: ['leaf'] });
    // A line written by hand naming a parent that only appears later in the file.
    await fs.appendFile(
      path.join(env.projectDir(P), 'knowledge_graph.ndjson'),
      JSON.stringify({ id: 'late', project: P, projectContext: CTX, thought: 't', role: 'actor', tags: [], artifacts: [], parents: ['root', 'gone'], createdAt: 'x' }) + '\n',
    );
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'gone', thought: 'g', role: 'actor' }] });
    // 'late' depends on 'gone' (line order reversed): the fixpoint still finds it.
    const refused = await env.del.execute({ projectContext: CTX, nodeIds: ['gone'] });
    expect(refused.dependentNodes.map((d) => d.nodeId)).toEqual(['late']);
    const ok = await env.del.execute({ projectContext: CTX, nodeIds: ['gone', 'late'] });
    expect(ok.success).toBe(true);
    const lines = (await env.readLines(P)).map((l) => JSON.parse(l));
    expect(lines.map((n) => n.id)).toEqual(['root']);
  });

  it('drops parents that no longer exist from a restored node, and reports them', async () => {
    await env.add.execute({
      projectContext: CTX,
      nodes: [
        { id: 'p1', thought: 'p1', role: 'actor' },
        { id: 'p2', thought: 'p2', role: 'actor' },
        { id: 'kid', thought: 'kid', role: 'actor', parents: ['p1', 'p2'] },
      ],
    });
    // Deleting p1 is refused (kid descends from it). Restore scenario: delete kid + p1, restore kid → p1 dropped.
    expect((await env.del.execute({ projectContext: CTX, nodeIds: ['p1'] })).success).toBe(false);
    await env.del.execute({ projectContext: CTX, nodeIds: ['kid', 'p1'] });
    const restored = await env.restore.execute({ projectContext: CTX, nodeIds: ['kid'] });
    expect(restored.restoredNodeIds).toEqual(['kid']);
    expect(restored.droppedParents).toEqual([{ nodeId: 'kid', parents: ['p1'] }]);
    expect(restored.warnings).toEqual(['Node kid: parent(s) p1 no longer exist and were dropped']);
    const kid = (await env.get.execute({ projectContext: CTX, id: 'kid' })).node;
    expect(kid.parents).toEqual(['p2']);
    expect((await env.get.execute({ projectContext: CTX, id: 'p2' })).node.children).toEqual(['kid']);
    // kid's record left the deleted file; p1's stays.
    const records = (await env.readLines(P, 'knowledge_graph.deleted.ndjson')).map((l) => JSON.parse(l).nodeId);
    expect(records).toEqual(['p1']);
    // Now p1 restored: its child relation to kid is gone (kid's parent was dropped), p1 comes back as a root.
    await env.restore.execute({ projectContext: CTX, nodeIds: ['p1'] });
    expect((await env.get.execute({ projectContext: CTX, id: 'p1' })).node.children).toEqual([]);
    expect(await env.readLines(P, 'knowledge_graph.deleted.ndjson')).toEqual([]);
  });

  it('restores parents before children in one call and refuses ids that exist again or were never deleted', async () => {
    await chain(['a', 'b', 'c']);
    await env.del.execute({ projectContext: CTX, nodeIds: ['a', 'b', 'c'] });
    await expect(env.restore.execute({ projectContext: CTX, nodeIds: ['zz'] })).rejects.toThrow(/no deleted record.*zz/);
    const out = await env.restore.execute({ projectContext: CTX, nodeIds: ['c', 'b', 'a'] });
    expect(out.droppedParents).toEqual([]);
    expect(out.restoredNodeIds).toEqual(['a', 'b', 'c']);
    expect((await env.get.execute({ projectContext: CTX, id: 'a' })).node.children).toEqual(['b']);

    await env.del.execute({ projectContext: CTX, nodeIds: ['c'] });
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'c', thought: 'a new c', role: 'actor' }] });
    await expect(env.restore.execute({ projectContext: CTX, nodeIds: ['c'] })).rejects.toThrow(AlreadyExistsError);
    await expect(env.restore.execute({ projectContext: CTX, nodeIds: ['c'] })).rejects.toThrow(/exists|already/);
    expect((await env.get.execute({ projectContext: CTX, id: 'c' })).node.thought).toBe('a new c');
    expect((await env.readLines(P, 'knowledge_graph.deleted.ndjson')).length).toBe(1);
  });

  it('makes a unique backup per delete in the same second and prunes by count and age', async () => {
    const small = await makeKnowledgeEnv({ backupMaxCount: 3, backupMaxAgeDays: 1 });
    try {
      for (let i = 0; i < 5; i++) await small.add.execute({ projectContext: CTX, nodes: [{ id: `x${i}`, thought: 't', role: 'actor' }] });
      const backupDir = path.join(small.projectDir(P), 'backup');
      await fs.mkdir(backupDir, { recursive: true });
      await fs.writeFile(path.join(backupDir, 'knowledge_graph_20240101-000000.ndjson'), ''); // older than a day
      await fs.writeFile(path.join(backupDir, 'notes.txt'), 'not a backup');
      const paths: string[] = [];
      for (let i = 0; i < 4; i++) paths.push((await small.del.execute({ projectContext: CTX, nodeIds: [`x${i}`] })).backupPath!);
      expect(new Set(paths).size).toBe(4);
      expect(path.basename(paths[0]!)).toBe('knowledge_graph_20250301-120000.ndjson');
      expect(path.basename(paths[1]!)).toBe('knowledge_graph_20250301-120000-1.ndjson');
      // Each backup holds the graph before its delete.
      expect((await fs.readFile(paths[3]!, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(['x3', 'x4']);
      const left = (await fs.readdir(backupDir)).sort();
      expect(left).toEqual(
        ['knowledge_graph_20250301-120000-1.ndjson', 'knowledge_graph_20250301-120000-2.ndjson', 'knowledge_graph_20250301-120000-3.ndjson', 'notes.txt'].sort(),
      );
    } finally {
      await small.cleanup();
    }
  });

  it('keeps a malformed line as it is and reports it', async () => {
    await chain(['a', 'b']);
    const file = path.join(env.projectDir(P), 'knowledge_graph.ndjson');
    await fs.appendFile(file, '{"id":"torn","thou');
    // An append after a torn line starts on a fresh line.
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'c', thought: 'c', role: 'actor' }] });
    const page = await env.list.execute({ projectContext: CTX });
    expect(page.nodes.map((n) => n.id)).toEqual(['c', 'b', 'a']);
    expect(page.malformedLines).toBe(1);
    const out = await env.del.execute({ projectContext: CTX, nodeIds: ['c'] });
    expect(out.success).toBe(true);
    expect(out.warnings).toEqual([expect.stringMatching(/^Line 3 of .*knowledge_graph\.ndjson is malformed and was kept as it is: \{"id":"torn","thou$/)]);
    const lines = await env.readLines(P);
    expect(lines).toEqual([expect.stringContaining('"id":"a"'), expect.stringContaining('"id":"b"'), '{"id":"torn","thou']);
  });
});
