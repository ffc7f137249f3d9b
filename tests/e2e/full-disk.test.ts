import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * A real full disk under the built server: as root (CI) the data dir is a small tmpfs, resized with `remount`;
 * otherwise the server runs under `prlimit --fsize` (writes past the limit fail with EFBIG after a short write).
 * Never an acknowledged write lost, never a success for a partial write, full service once space is back.
 */
const ROOT = process.getuid?.() === 0 && process.env.WG_FULL_DISK_MODE !== 'prlimit';
const FSIZE = 192 * 1024;
type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CTX = 'full-disk';

function codeOf(r: CallToolResult): string | undefined {
  return (r._meta as Record<string, string> | undefined)?.['workgraph/errorCode'];
}
function textOf(r: CallToolResult): string {
  return (r.content as Array<{ text: string }>)[0]!.text;
}

describe(`full disk (${ROOT ? 'tmpfs data dir' : 'prlimit --fsize'})`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let dataDir: string;
  let mounted = false;
  let conn: Conn | undefined;

  const projectDir = () => path.join(dataDir, 'projects', CTX);
  const graphIds = () =>
    readLines(path.join(projectDir(), 'knowledge_graph.ndjson')).flatMap((l) => {
      try {
        return [JSON.parse(l).id as string];
      } catch {
        return [];
      }
    });
  const deletedIds = () =>
    readLines(path.join(projectDir(), 'knowledge_graph.deleted.ndjson')).flatMap((l) => {
      try {
        return [JSON.parse(l).nodeId as string];
      } catch {
        return [];
      }
    });
  function readLines(file: string): string[] {
    try {
      return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }
  /** No node is both in the graph and deleted, unless an interrupted change is marked for repair by the next write. */
  function assertConsistent(strict: boolean) {
    const inGraph = new Set(graphIds());
    const both = deletedIds().filter((id) => inGraph.has(id));
    if (strict || !fs.existsSync(path.join(projectDir(), 'knowledge_graph.pending.json'))) expect(both).toEqual([]);
  }
  async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await conn!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  }
  async function ok(name: string, args: Record<string, unknown>): Promise<Structured> {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
    return r.structuredContent as Structured;
  }
  async function start(limited: boolean) {
    await conn?.close();
    conn = await connectClient({ dataDir, wrap: limited && !ROOT ? ['prlimit', `--fsize=${FSIZE}`] : undefined });
  }
  function resize(bytes: number) {
    execFileSync('mount', ['-o', `remount,size=${bytes}`, dataDir]);
  }

  beforeAll(async () => {
    tmp = tempDir('wg-e2e-full-disk-');
    dataDir = path.join(tmp.dir, 'data');
    fs.mkdirSync(dataDir);
    if (ROOT) {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dataDir]);
      mounted = true;
    }
    await start(true);
  });
  afterAll(async () => {
    await conn?.close();
    if (mounted) execFileSync('umount', ['-l', dataDir]);
    tmp.cleanup();
  });

  const acked: string[] = [];
  const refused: string[] = [];

  it('add_nodes until the disk is full: every success readable, every failure a storage_error leaving nothing', async () => {
    const thought = 'A thought long enough to fill the disk quickly. '.repeat(80);
    for (let i = 0; i < 400 && refused.length < 3; i++) {
      const id = `k${i}`;
      const r = await call('add_nodes', { projectContext: CTX, nodes: [{ id, thought: `${i} ${thought}`, role: 'actor' }] });
      if (r.isError) {
        expect(codeOf(r)).toBe('storage_error');
        expect(textOf(r)).toMatch(/knowledge_graph|format\.json|owner/);
        expect(textOf(r)).toMatch(/no space left|file too large/);
        refused.push(id);
      } else acked.push(id);
    }
    expect(refused.length).toBeGreaterThan(0);
    expect(acked.length).toBeGreaterThan(3);
    // Reads still work on a full disk: every acknowledged node is there, whole; no refused one is.
    for (const id of acked) expect((await ok('get_node', { projectContext: CTX, id })).node.id).toBe(id);
    for (const id of refused) expect(codeOf(await call('get_node', { projectContext: CTX, id }))).toBe('not_found');
    const ids = graphIds();
    expect(ids).toEqual(acked);
    // No torn line: every line of the graph parses.
    for (const l of readLines(path.join(projectDir(), 'knowledge_graph.ndjson'))) expect(() => JSON.parse(l)).not.toThrow();
  });

  it('delete_nodes on the full disk: a storage_error or a real success, never a half-done delete', async () => {
    const victim = acked[0]!;
    const r = await call('delete_nodes', { projectContext: CTX, nodeIds: [victim] });
    if (r.isError) {
      expect(codeOf(r)).toBe('storage_error');
      expect(graphIds()).toEqual(acked);
    } else {
      expect((r.structuredContent as Structured).success).toBe(true);
      expect(graphIds()).not.toContain(victim);
      expect(deletedIds()).toContain(victim);
      acked.shift();
    }
    assertConsistent(false);
    if (ROOT) {
      // Room for the backup and the records but not for the whole rebuilt graph: the rebuild itself runs out.
      const graphBytes = fs.statSync(path.join(projectDir(), 'knowledge_graph.ndjson')).size;
      const st = fs.statfsSync(dataDir);
      const used = (st.blocks - st.bfree) * st.bsize;
      resize(used + Math.floor(graphBytes * 1.5));
      const target = acked[acked.length - 1]!;
      const r2 = await call('delete_nodes', { projectContext: CTX, nodeIds: [target] });
      if (r2.isError) {
        expect(codeOf(r2)).toBe('storage_error');
        expect(graphIds()).toEqual(acked);
      } else {
        expect(graphIds()).not.toContain(target);
        acked.pop();
      }
      assertConsistent(false);
    }
  });

  it('full service once space is back: adds, deletes, restores; nothing acknowledged lost, no orphan record', async () => {
    if (ROOT) resize(64 * 1024 * 1024);
    else await start(false);
    const added = await ok('add_nodes', { projectContext: CTX, nodes: [{ id: 'after', thought: 'space is back', role: 'actor' }] });
    expect(added.ids).toEqual(['after']);
    assertConsistent(true);
    for (const id of acked) expect((await ok('get_node', { projectContext: CTX, id })).node.id).toBe(id);
    const del = await ok('delete_nodes', { projectContext: CTX, nodeIds: [acked[1]!] });
    expect(del.success).toBe(true);
    const res = await ok('restore_nodes', { projectContext: CTX, nodeIds: [acked[1]!] });
    expect(res.restoredNodeIds).toEqual([acked[1]]);
    expect(new Set(graphIds())).toEqual(new Set([...acked, 'after']));
    assertConsistent(true);
  });
});
