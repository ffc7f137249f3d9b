import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_MODULES, transpileSrc } from './support/transpile-src';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';

/**
 * A writer SIGKILLed at each step of the writes that rewrite the graph or change it with the deleted records:
 * delete_nodes (with its summaries recalculated), restore_nodes (with its summaries brought back), and the summary
 * rewrites they make (updateNodes). Same technique as knowledge-search-kill-points.test.ts (which covers adds): the
 * step's function is wrapped in the child so that its n-th call kills the process right after it returns (or, for the
 * graph's rename, right before it). After each kill:
 * - the graph on disk is the one from before the write in progress or the one after it, never a mix, and which one
 *   is what the step says (before the rename: old; after: new);
 * - a search — in this process, through a store kept across kills and through a new one — answers exactly what a
 *   search over a freshly built index of the same files answers;
 * - the next writer goes on from there (the next run's deletes and restores succeed), and after a last clean run the
 *   index still agrees with a fresh one.
 */
const P = 'rewrites';

/** Each step, the write it ends, and the graph it must leave: the one before the write in progress, or after. */
const POINTS = {
  'marker written': 'old', // beginTwoFileChange (delete or restore)
  'backup written': 'old', // createBackup (delete)
  'deletion records appended': 'old', // appendFully of the deleted file (delete)
  'graph rewritten, not renamed': 'old', // rewriteNdjsonFile's temp file fsynced, killed before the rename
  'graph renamed': 'new', // the rename over the graph (delete, summary rewrite), index not rebuilt
  'index segment written': 'new', // a rebuild's (or a restore's flush) segment, manifest not written
  'index manifest written': 'new', // the manifest, leftovers (old segments, temp files) not removed
  'restored nodes appended': 'new', // restore's graph append, tail record not written
  'tail record written': 'new', // restore's tail record
  'deleted records rewritten': 'new', // restore's rewrite of the deleted file (rename done), marker not removed
  'marker removed': 'new', // endTwoFileChange
  // The index following a rewrite (SearchIndexFiles.afterRewrite) instead of rebuilding it:
  'rewrite followed: segment indexed again': 'new', // a segment holding a rewritten line, indexed from the new file
  'rewrite followed: manifest written': 'new', // the manifest with the segments' marks, the tail not indexed yet
  'rewrite followed: tail record written': 'new', // the tail record after it (only with a tail: a flush policy of 8)
} as const;
type Point = keyof typeof POINTS;

const CHILD_JS = `
require('reflect-metadata');
const fs = require('node:fs');
const [srcDir, dataDir, point, nth, cycles, log, flush] = process.argv.slice(2);
const from = (fn) => () => new Error().stack.includes(fn);
let armed = false;
let calls = 0;
const hit = () => armed && ++calls === Number(nth) && process.kill(process.pid, 'SIGKILL');
const wrap = (mod, name, when, before) => {
  const real = mod[name];
  mod[name] = function (...args) {
    if (!when(args)) return real.apply(this, args);
    if (before) hit();
    const out = real.apply(this, args);
    if (before) return out;
    if (out && typeof out.then === 'function') return out.then((v) => { hit(); return v; });
    hit();
    return out;
  };
};
const aw = require(srcDir + '/kernel/files/atomic-write');
const wf = require(srcDir + '/kernel/files/write-fully');
const bf = require(srcDir + '/modules/knowledge/infrastructure/backup-files');
const im = require(srcDir + '/modules/knowledge/infrastructure/search-index/index-manifest');
const { NdjsonGraphWriter } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-graph-writer');
const W = NdjsonGraphWriter.prototype;
const any = () => true;
const graphFile = (f) => f.endsWith('knowledge_graph.ndjson');
const deletedFile = (f) => f.endsWith('knowledge_graph.deleted.ndjson');
if (point === 'marker written') wrap(W, 'beginTwoFileChange', any);
if (point === 'backup written') wrap(bf, 'createBackup', any);
if (point === 'deletion records appended') wrap(wf, 'appendFully', (a) => deletedFile(a[0]));
if (point === 'graph rewritten, not renamed') wrap(aw, 'commitTempFile', (a) => graphFile(a[1]), true);
if (point === 'graph renamed') wrap(aw, 'commitTempFile', (a) => graphFile(a[1]));
if (point === 'index segment written') wrap(aw, 'writeUnpublishedFile', any);
if (point === 'index manifest written') wrap(im, 'writeManifestFile', any);
if (point === 'restored nodes appended') wrap(wf, 'appendFully', (a) => graphFile(a[0]));
if (point === 'tail record written') wrap(aw, 'writeRecordInPlace', any);
if (point === 'deleted records rewritten') wrap(aw, 'commitTempFile', (a) => deletedFile(a[1]));
if (point === 'marker removed') wrap(W, 'endTwoFileChange', any);
const tr = require(srcDir + '/modules/knowledge/infrastructure/search-index/tail-record');
if (point === 'rewrite followed: segment indexed again') wrap(aw, 'writeUnpublishedFile', from('followRewrite'));
if (point === 'rewrite followed: manifest written') wrap(im, 'writeManifestFile', from('afterRewrite'));
if (point === 'rewrite followed: tail record written') wrap(tr, 'writeTailRecord', from('afterRewrite'));
// Each graph-changing write is logged before it starts (synchronously: the kill loses nothing), with what it changes.
let depth = 0;
const note = (rec) => fs.appendFileSync(log, JSON.stringify(rec) + '\\n');
const logged = (name, what) => {
  const real = W[name];
  W[name] = async function (...args) {
    if (depth++ === 0 && armed) note({ op: name, ...(await what.call(this, ...args)) });
    try { return await real.apply(this, args); } finally { if (--depth === 0 && armed) note({ end: name }); }
  };
};
logged('deleteWithBackup', async (records) => ({ ids: records.map((r) => r.nodeId) }));
logged('restore', async (nodes) => ({ ids: nodes.map((n) => n.id) }));
logged('append', async (nodes) => ({ ids: nodes.map((n) => n.id) }));
logged('updateNodes', async function (ids) {
  const found = await this.findByIds(ids);
  return { ids: [...ids], thoughts: [...ids].map((id) => found.get(id) && found.get(id).thought) };
});

const { createNdjsonKnowledgeStore } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store');
const { DeleteNodes } = require(srcDir + '/modules/knowledge/application/use-cases/delete-nodes');
const { RestoreNodes } = require(srcDir + '/modules/knowledge/application/use-cases/restore-nodes');
const { silentLogger } = require(srcDir + '/kernel/logger');
const { systemClock } = require(srcDir + '/kernel/clock');
// A flush at every append (a restore's append writes segments and a manifest too, after its tail record), or every 8
// nodes (a rewrite then finds a tail to index again, and segments to mark).
const store = createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000, waitMs: 20000 }, searchFlush: { nodes: Number(flush) } });
const del = new DeleteNodes(store, systemClock, silentLogger);
const restore = new RestoreNodes(store, silentLogger);
const words = ['retry', 'backoff', 'cache', 'budget', 'parser', 'queue'];
const node = (id, thought, extra = {}) => ({ id, project: '${P}', projectContext: '${P}', thought, role: 'actor', tags: [], artifacts: [], parents: [], createdAt: '2026-01-01T00:00:00.000Z', ...extra });
(async () => {
  const first = (await store.reader('${P}').findByIds(new Set(['sum']))).size === 0;
  if (first) {
    // Six nodes a summary covers (each with its own word), the summary, and filler.
    const seg = Array.from({ length: 6 }, (_, i) => node('s' + i, 'lantern seg' + i + ' ' + words[i] + '. ' + words[(i + 2) % 6] + ' detail'));
    const sum = node('sum', 'ledger overview of the lanterns', { role: 'summary', summarizedSegment: seg.map((n) => n.id) });
    const filler = Array.from({ length: 24 }, (_, i) => node('f' + i, words[i % 6] + ' ' + words[(i * 5 + 1) % 6] + ' note ' + i));
    await store.withLock('${P}', (g) => g.append([...seg, sum, ...filler]));
  }
  // A write with nothing to do: what an earlier kill left is repaired here, before the counting starts.
  await store.withLock('${P}', async () => undefined);
  armed = true;
  // The cycles go on from the last delete that finished: an interrupted one is tried again (or its node restored).
  const run = fs.readFileSync(log, 'utf8').split('\\n').filter((l) => l === '{"end":"deleteWithBackup"}').length;
  for (let c = 0; c < Number(cycles); c++) {
    const k = (run + c) % 6;
    const target = 's' + k;
    if ((await store.reader('${P}').findByIds(new Set([target]))).size === 0) {
      await restore.execute({ projectContext: '${P}', nodeIds: [target] });
      continue;
    }
    const out = await del.execute({ projectContext: '${P}', nodeIds: [target], recalculateSummaries: true, reason: 'kill test' });
    if (!out.success) throw new Error('delete refused: ' + out.message);
    await restore.execute({ projectContext: '${P}', nodeIds: [target] });
    const added = Array.from({ length: 2 }, (_, i) => node('a' + process.pid + '-' + c + '-' + i, words[(c + i) % 6] + ' added ' + c));
    await store.withLock('${P}', (g) => g.append(added));
  }
  process.exit(0);
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;

function runChild(script: string, args: string[]): Promise<'killed' | 'done'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, NODE_PATH: NODE_MODULES }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve('killed') : code === 0 ? resolve('done') : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

interface Begun {
  op: 'deleteWithBackup' | 'restore' | 'append' | 'updateNodes';
  ids: string[];
  thoughts?: Array<string | undefined>;
}

/** The write the kill interrupted: the last one logged as begun and not as ended. */
function inProgress(log: string): Begun | undefined {
  let open: Begun | undefined;
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    if (!line) continue;
    const rec = JSON.parse(line) as Begun | { end: string };
    open = 'end' in rec ? undefined : rec;
  }
  return open;
}

/** The graph file's nodes by id (each line parsed; the graph is never torn by these writes). */
type GraphNode = { thought: string; role?: string; summaryHistory?: Array<{ deletedNodeIds: string[] }> };
function graphNodes(dataDir: string): Map<string, GraphNode> {
  const text = fs.readFileSync(path.join(dataDir, 'projects', P, 'knowledge_graph.ndjson'), 'utf8');
  const out = new Map<string, GraphNode>();
  for (const line of text.split('\n')) if (line) out.set((JSON.parse(line) as { id: string }).id, JSON.parse(line) as GraphNode);
  return out;
}

/**
 * Summaries still waiting for nodes that are all back — a restore interrupted between its append and the summaries'
 * old text, not finished by the next writer: the newest version's deleted nodes all present (restoredSummary pops
 * versions newest first).
 */
function waitingSummaries(live: Map<string, GraphNode>): Array<{ id: string; thought: string }> {
  return [...live.entries()]
    .filter(([, n]) => n.role === 'summary' && n.summaryHistory?.length && n.summaryHistory[n.summaryHistory.length - 1]!.deletedNodeIds.every((id) => live.has(id)))
    .map(([id, n]) => ({ id, thought: n.thought }));
}

/** Is the graph the one before the write in progress, the one after, or a mix? */
function whichGraph(w: Begun, nodes: Map<string, { thought: string }>): 'old' | 'new' | 'mix' {
  const present = w.ids.map((id) => nodes.has(id));
  const all = present.every(Boolean);
  const none = !present.some(Boolean);
  if (w.op === 'deleteWithBackup') return all ? 'old' : none ? 'new' : 'mix';
  if (w.op === 'restore' || w.op === 'append') return none ? 'old' : all ? 'new' : 'mix';
  const same = w.ids.map((id, i) => nodes.get(id)?.thought === w.thoughts![i]);
  return same.every(Boolean) ? 'old' : !same.some(Boolean) ? 'new' : 'mix';
}

describe.each([1, 8])('search after a writer is SIGKILLed at each step of a delete, a restore and a summary rewrite (flush every %i nodes)', (flush) => {
  let tmp: string;
  let srcDir: string;
  let script: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-kill-rw-'));
    srcDir = transpileSrc(path.join(tmp, 'build'));
    script = path.join(tmp, 'writer.js');
    fs.writeFileSync(script, CHILD_JS);
  }, 120_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // Deleted and restored nodes (lantern, seg<k>), the summary's old text (ledger) and its recalculated one (the
  // remaining nodes' first sentences: lantern), filler, a phrase, an exclusion, and the deleted records themselves.
  const QUERIES: Array<{ query: string; includeDeleted?: boolean }> = [
    { query: 'lantern' },
    { query: 'ledger' },
    { query: 'seg0 OR seg1 OR seg2 OR seg3' },
    { query: 'cache OR parser' },
    { query: '"budget queue"' },
    { query: 'note -backoff' },
    { query: 'lantern -ledger' },
    { query: 'lantern', includeDeleted: true },
  ];
  const searchAll = async (store: NdjsonKnowledgeStore) => {
    const out: string[][] = [];
    // One after another: the first may repair the index (and settle a pending delete) under the lock.
    for (const q of QUERIES) out.push((await new SearchNodes(store).execute({ projectContext: P, ...q, limit: 100 })).hits.map((h) => `${h.id}:${h.score}${h.deleted ? ':deleted' : ''}`));
    return out;
  };
  const openStore = (dataDir: string) => createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000, waitMs: 20_000 } });
  /** The same searches over an index built from scratch: graph and deleted records copied to a data dir of their own. */
  const fresh = async (dataDir: string) => {
    const copy = fs.mkdtempSync(path.join(tmp, 'fresh-'));
    fs.mkdirSync(path.join(copy, 'projects', P), { recursive: true });
    for (const f of ['knowledge_graph.ndjson', 'knowledge_graph.deleted.ndjson']) {
      const from = path.join(dataDir, 'projects', P, f);
      if (fs.existsSync(from)) fs.copyFileSync(from, path.join(copy, 'projects', P, f));
    }
    try {
      return await searchAll(openStore(copy));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  };
  /** The killed writer is dead: its lock is made stale at once instead of waiting out the 2 s stale period. */
  const staleLock = (dataDir: string) => {
    const lock = path.join(dataDir, 'projects', P, '.lock');
    const past = new Date(Date.now() - 60_000);
    if (fs.existsSync(lock)) fs.utimesSync(lock, past, past);
  };

  // The n-th calls reach different writes of the cycle (delete, its summary rewrite, restore, its summary rewrite,
  // an add) and later cycles over a graph already rewritten.
  const NTH: Record<Point, number[]> = {
    'marker written': [1, 2],
    'backup written': [1, 2],
    'deletion records appended': [1, 2],
    'graph rewritten, not renamed': [1, 2, 3],
    'graph renamed': [1, 2, 3],
    'index segment written': [1, 3, 5],
    'index manifest written': [1, 3, 5],
    'restored nodes appended': [1, 2],
    'tail record written': [1, 2],
    'deleted records rewritten': [1, 2],
    'marker removed': [1, 2],
    'rewrite followed: segment indexed again': [1, 2, 3],
    'rewrite followed: manifest written': [1, 2, 3],
    'rewrite followed: tail record written': [1, 2],
  };
  const points = (Object.keys(POINTS) as Point[]).filter((p) => flush > 1 || p !== 'rewrite followed: tail record written');

  it.each(points)('killed right after "%s": the graph is old or new as the step says, search equals a fresh index, and writes go on', async (point) => {
    const dataDir = path.join(tmp, `${flush}-${point.replace(/[^a-z]+/g, '-')}`);
    const log = path.join(tmp, `${flush}-${point.replace(/[^a-z]+/g, '-')}.log`);
    fs.writeFileSync(log, '');
    const kept = openStore(dataDir);
    for (const nth of NTH[point]) {
      expect(await runChild(script, [srcDir, dataDir, point, String(nth), '50', log, String(flush)])).toBe('killed');
      const w = inProgress(log);
      expect([point, nth, w && w.op, w && whichGraph(w, graphNodes(dataDir))]).toEqual([point, nth, w?.op, POINTS[point]]);
      staleLock(dataDir);
      const got = await searchAll(kept);
      const again = await searchAll(openStore(dataDir));
      const expected = await fresh(dataDir);
      expect([point, nth, got]).toEqual([point, nth, expected]);
      expect([point, nth, again]).toEqual([point, nth, expected]);
      expect(expected[0]!.length).toBeGreaterThan(0);
      // The next write settles what the kill left: no summary then waits for nodes that are all back.
      await kept.withLock(P, async () => undefined);
      expect([point, nth, waitingSummaries(graphNodes(dataDir))]).toEqual([point, nth, []]);
    }
    // A clean writer goes on from the last kill (one full cycle), and the index still agrees.
    expect(await runChild(script, [srcDir, dataDir, 'none', '0', '1', log, String(flush)])).toBe('done');
    expect(inProgress(log)).toBeUndefined();
    // No node is both in the graph and deleted once a writer has been through (an interrupted delete or restore settled).
    const live = graphNodes(dataDir);
    const deletedFile = path.join(dataDir, 'projects', P, 'knowledge_graph.deleted.ndjson');
    const records = fs.existsSync(deletedFile) ? fs.readFileSync(deletedFile, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { nodeId: string }).nodeId) : [];
    expect(records.filter((id) => live.has(id))).toEqual([]);
    expect([point, waitingSummaries(live)]).toEqual([point, []]);
    const expected = await fresh(dataDir);
    expect(await searchAll(kept)).toEqual(expected);
    expect(await searchAll(openStore(dataDir))).toEqual(expected);
  }, 180_000);
});
