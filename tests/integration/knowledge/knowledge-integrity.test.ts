import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { makeKnowledgeEnv, type KnowledgeEnv } from './support/knowledge-env';
import { setWriteImplForTests, type WriteFn } from '../../../src/kernel/files/atomic-write';
import { PENDING_FILE } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';

/** A project given by name (no separator): its id is the name's slug. */
const CTX = 'integrity';
const P = 'integrity';

/** Writes at most `budget` bytes in all (5 per call), then none: a disk filling up mid-write. */
function fillingDisk(budget: number): WriteFn {
  let left = budget;
  return async (handle, buf, offset, length, position) => {
    const n = Math.min(5, length, left);
    left -= n;
    if (n === 0) return 0;
    return (await handle.write(buf, offset, n, position)).bytesWritten;
  };
}

describe('knowledge integrity: nothing acknowledged lost, nothing half done', () => {
  let env: KnowledgeEnv;
  beforeEach(async () => {
    env = await makeKnowledgeEnv();
    await env.add.execute({
      projectContext: CTX,
      nodes: [
        { id: 'a', thought: 'first', role: 'actor' },
        { id: 'b', thought: 'second', role: 'actor', parents: ['a'] },
        { id: 'c', thought: 'third', role: 'actor' },
      ],
    });
  });
  afterEach(async () => {
    setWriteImplForTests(undefined);
    await env.cleanup();
  });

  it('add_nodes on a short write: storage_error naming the graph file, the file unchanged, then full service', async () => {
    const before = await fs.readFile(path.join(env.projectDir(P), 'knowledge_graph.ndjson'));
    setWriteImplForTests(fillingDisk(20));
    const err = await env.add.execute({ projectContext: CTX, nodes: [{ id: 'd', thought: 'x'.repeat(500), role: 'actor' }] }).catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toContain('knowledge_graph.ndjson');
    expect(await fs.readFile(path.join(env.projectDir(P), 'knowledge_graph.ndjson'))).toEqual(before);
    await expect(env.get.execute({ projectContext: CTX, id: 'd' })).rejects.toMatchObject({ code: 'not_found' });
    setWriteImplForTests(undefined);
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'd', thought: 'fits now', role: 'actor' }] });
    expect((await env.get.execute({ projectContext: CTX, id: 'd' })).node.thought).toBe('fits now');
  });

  it('delete_nodes whose rebuild runs out of space: an error, every node still there, no deletion record left', async () => {
    const big = Array.from({ length: 40 }, (_, i) => ({ id: `n${i}`, thought: 'y'.repeat(300), role: 'actor' as const }));
    await env.add.execute({ projectContext: CTX, nodes: big });
    const graphBefore = await fs.readFile(path.join(env.projectDir(P), 'knowledge_graph.ndjson'));
    // Enough for the marker and the records (a few hundred bytes), not for the rebuilt graph (≈ 14 KB).
    let wrote = 0;
    setWriteImplForTests(async (handle, buf, offset, length, position) => {
      const n = Math.min(length, Math.max(0, 2000 - wrote), 64);
      wrote += n;
      if (n === 0) return 0;
      return (await handle.write(buf, offset, n, position)).bytesWritten;
    });
    const err = await env.del.execute({ projectContext: CTX, nodeIds: ['c'] }).catch((e) => e);
    expect(err.code).toBe('storage_error');
    setWriteImplForTests(undefined);
    expect(await fs.readFile(path.join(env.projectDir(P), 'knowledge_graph.ndjson'))).toEqual(graphBefore);
    // Whatever got written of the records was taken back at once or is settled by the next write.
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'e', thought: 'after', role: 'actor' }] });
    expect(await env.readLines(P, 'knowledge_graph.deleted.ndjson')).toEqual([]);
    await expect(fs.access(path.join(env.projectDir(P), PENDING_FILE))).rejects.toThrow();
    const del = await env.del.execute({ projectContext: CTX, nodeIds: ['c'] });
    expect(del.success).toBe(true);
  });

  it('a delete interrupted after its records were written is settled by the next write: node kept, record gone', async () => {
    // Interrupt a delete between the records and the rebuild, as an exit or a lost lock would.
    await env.store
      .withLock(P, async (graph) => {
        await graph.beginTwoFileChange('delete', ['c']);
        const nodeData = (await graph.findByIds(new Set(['c']))).get('c')!;
        await graph.appendDeleted([{ nodeId: 'c', project: P, reason: null, timestamp: new Date().toISOString(), nodeData }]);
        throw new Error('interrupted');
      })
      .catch(() => undefined);
    expect(await env.readLines(P, 'knowledge_graph.deleted.ndjson')).toHaveLength(1);
    // The next write (any of them) repairs under the lock; restore_nodes then sees no deleted record of c.
    await expect(env.restore.execute({ projectContext: CTX, nodeIds: ['c'] })).rejects.toMatchObject({ code: 'not_found' });
    expect(await env.readLines(P, 'knowledge_graph.deleted.ndjson')).toEqual([]);
    expect((await env.get.execute({ projectContext: CTX, id: 'c' })).node.id).toBe('c');
    const del = await env.del.execute({ projectContext: CTX, nodeIds: ['c'] });
    expect(del.success).toBe(true);
    expect((await env.restore.execute({ projectContext: CTX, nodeIds: ['c'] })).restoredNodeIds).toEqual(['c']);
  });

  it('a restore interrupted after its append is completed by the next write (record removed, node kept)', async () => {
    await env.del.execute({ projectContext: CTX, nodeIds: ['c'] });
    await env.store
      .withLock(P, async (graph) => {
        const records: import('../../../src/modules/knowledge/domain').DeletedNodeRecord[] = [];
        await graph.scanDeleted((r) => records.push(r));
        await graph.beginTwoFileChange('restore', ['c']);
        await graph.append([records[0]!.nodeData]);
        throw new Error('interrupted');
      })
      .catch(() => undefined);
    await env.add.execute({ projectContext: CTX, nodes: [{ id: 'z', thought: 'any write', role: 'actor' }] });
    expect(await env.readLines(P, 'knowledge_graph.deleted.ndjson')).toEqual([]);
    expect((await env.get.execute({ projectContext: CTX, id: 'c' })).node.thought).toBe('third');
  });

  it('a rebuild keeps malformed lines byte for byte (invalid UTF-8, CRLF) and reports them', async () => {
    const file = path.join(env.projectDir(P), 'knowledge_graph.ndjson');
    const junk = Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0xff, 0xfe, 0xc3, 0x28, 0x7d]); // {"x":\xff\xfe\xc3(}
    const crlf = Buffer.from('not json at all\r');
    await fs.appendFile(file, Buffer.concat([junk, Buffer.from('\n'), crlf, Buffer.from('\n')]));
    const res = await env.del.execute({ projectContext: CTX, nodeIds: ['c'] });
    expect(res.success).toBe(true);
    expect(res.warnings.filter((w) => /malformed/.test(w))).toHaveLength(2);
    const after = await fs.readFile(file);
    expect(after.includes(Buffer.concat([Buffer.from('\n'), junk, Buffer.from('\n')]))).toBe(true);
    expect(after.includes(Buffer.concat([crlf, Buffer.from('\n')]))).toBe(true);
  });

  it('EISDIR and unreadable files are storage_error naming the file, never internal_error', async () => {
    const deleted = path.join(env.projectDir(P), 'knowledge_graph.deleted.ndjson');
    await fs.mkdir(deleted);
    const err = await env.restore.execute({ projectContext: CTX, nodeIds: ['a'] }).catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toContain(deleted);
    expect(err.message).toMatch(/folder where a file was expected/);
  });

  describe('project identity: two folders with the same name are two projects', () => {
    it('the first folder keeps the plain id, another folder of the same name gets its own', async () => {
      const a = await env.add.execute({ projectContext: '/home/me/work/app', nodes: [{ id: 'w1', thought: 'work app', role: 'actor' }] });
      const b = await env.add.execute({ projectContext: '/home/me/other/app/', nodes: [{ id: 'o1', thought: 'other app', role: 'actor' }] });
      expect(a.project).toBe('app');
      expect(b.project).toMatch(/^app-[0-9a-f]{8}$/);
      await expect(env.get.execute({ projectContext: '/home/me/other/app', id: 'w1' })).rejects.toMatchObject({ code: 'not_found' });
      expect((await env.get.execute({ projectContext: '/home/me/work/app/', id: 'w1' })).node.thought).toBe('work app');
      const listed = await env.list.execute({ projectContext: '/home/me/other/app' });
      expect(listed.nodes.map((n) => n.id)).toEqual(['o1']);
      // The owner is recorded in the project folder.
      const owner = JSON.parse(await fs.readFile(path.join(env.projectDir('app'), 'knowledge_graph.owner.json'), 'utf8'));
      expect(owner.pathKey).toBe('/home/me/work/app');
      // Deletes stay in their own project.
      await expect(env.del.execute({ projectContext: '/home/me/other/app', nodeIds: ['w1'] })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('a data dir written before owner files keeps its projects under their ids (owner read from the nodes)', async () => {
      // Today's layout: projects/<slug>/knowledge_graph.ndjson, no owner file.
      const dir = env.projectDir('legacy');
      await fs.mkdir(dir, { recursive: true });
      const node = { id: 'old1', project: 'legacy', projectContext: '/srv/legacy', thought: 'kept', role: 'actor', tags: [], artifacts: [], parents: [], createdAt: '2025-01-01T00:00:00.000Z' };
      await fs.writeFile(path.join(dir, 'knowledge_graph.ndjson'), JSON.stringify(node) + '\n');
      expect((await env.get.execute({ projectContext: '/srv/legacy/', id: 'old1' })).node.thought).toBe('kept');
      const added = await env.add.execute({ projectContext: '/srv/legacy', nodes: [{ thought: 'new', role: 'actor', parents: ['old1'] }] });
      expect(added.project).toBe('legacy');
      // Another folder named legacy is another project.
      const other = await env.add.execute({ projectContext: '/elsewhere/legacy', nodes: [{ thought: 'x', role: 'actor' }] });
      expect(other.project).not.toBe('legacy');
      // A bare name still means the plain id.
      expect((await env.get.execute({ projectContext: 'legacy', id: 'old1' })).node.id).toBe('old1');
    });
  });
});
