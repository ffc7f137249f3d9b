import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_MODULES, transpileSrc } from './support/transpile-src';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';

/**
 * knowledge-search-kill-points.test.ts with the tail written in the background (its policy's `background` at one
 * node): the segments are written and the manifest committed by a later add than the one that cut the tail, the
 * manifest covering the graph only to the cut and the tail record then rewritten for it. A writer SIGKILLed right
 * after a segment write, the manifest write (the record not yet rewritten: they disagree) or a tail record write:
 * after each kill a search — in another process's store — answers exactly what a search over a freshly built index of
 * the same graph answers, and the next writer goes on from there.
 */
const P = 'bgkilled';
const POINTS = ['tail record written', 'segment written', 'manifest written'] as const;

const ADDER_JS = `
const [srcDir, dataDir, point, nth] = process.argv.slice(2);
let calls = 0;
const killAfter = (mod, name, when) => {
  const real = mod[name];
  mod[name] = function (...args) {
    const out = real.apply(this, args);
    const kill = () => { if (when(args) && ++calls === Number(nth)) process.kill(process.pid, 'SIGKILL'); };
    if (out && typeof out.then === 'function') return out.then((v) => { kill(); return v; });
    kill();
    return out;
  };
};
const wf = require(srcDir + '/kernel/files/write-fully');
const aw = require(srcDir + '/kernel/files/atomic-write');
const im = require(srcDir + '/modules/knowledge/infrastructure/search-index/index-manifest');
if (point === 'graph appended') killAfter(wf, 'appendFully', (a) => a[0].endsWith('knowledge_graph.ndjson'));
if (point === 'tail record written') killAfter(aw, 'writeRecordInPlace', () => true);
if (point === 'segment written') killAfter(aw, 'writeUnpublishedFile', () => true);
if (point === 'manifest written') killAfter(im, 'writeManifestFile', () => true);
const { createNdjsonKnowledgeStore } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store');
const store = createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000, waitMs: 20000 }, searchFlush: { nodes: 12, background: 1 } });
const words = ['retry', 'backoff', 'cache', 'budget', 'parser', 'queue'];
(async () => {
  for (let i = 0; i < 400; i++) {
    const nodes = Array.from({ length: 1 + (i % 5) }, (_, k) => ({
      id: 'k' + process.pid + '-' + i + '-' + k, project: '${P}', projectContext: '${P}',
      thought: words[(i + k) % 6] + ' ' + words[(i * 3 + k) % 6] + ' note ' + i, role: 'actor', tags: [], artifacts: [], parents: [],
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }));
    await store.withLock('${P}', (g) => g.append(nodes));
  }
  process.stderr.write('never killed\\n');
  process.exit(3);
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;

function runUntilKilled(script: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, NODE_PATH: NODE_MODULES }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`adder exited ${code}: ${stderr}`))));
  });
}

describe('search after a writer is SIGKILLed at each step of a flush in the background', () => {
  let tmp: string;
  let srcDir: string;
  let script: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-bg-kill-'));
    srcDir = transpileSrc(path.join(tmp, 'build'));
    script = path.join(tmp, 'adder.js');
    fs.writeFileSync(script, ADDER_JS);
  }, 120_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const QUERIES = ['retry', 'cache OR parser', '"budget queue"', 'note -backoff'];
  const searchAll = async (dataDir: string) => {
    const store = createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000, waitMs: 20_000 } });
    return Promise.all(QUERIES.map(async (q) => (await new SearchNodes(store).execute({ projectContext: P, query: q, limit: 100 })).hits.map((h) => `${h.id}:${h.score}`)));
  };
  /** The same searches over an index built from scratch: the graph copied to a data dir of its own. */
  const fresh = async (dataDir: string) => {
    const copy = fs.mkdtempSync(path.join(tmp, 'fresh-'));
    fs.mkdirSync(path.join(copy, 'projects', P), { recursive: true });
    fs.copyFileSync(path.join(dataDir, 'projects', P, 'knowledge_graph.ndjson'), path.join(copy, 'projects', P, 'knowledge_graph.ndjson'));
    try {
      return await searchAll(copy);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  };

  // The first manifest is the new project's empty index (no graph yet): its kills start at the second.
  it.each(POINTS)('killed right after "%s" (three times, early and later): search equals a fresh index, and adds go on', async (point) => {
    const dataDir = path.join(tmp, point.replace(/ /g, '-'));
    for (const nth of point === 'manifest written' ? [2, 4, 8] : [1, 3, 7]) {
      await runUntilKilled(script, [srcDir, dataDir, point, String(nth)]);
      if (point === 'manifest written') {
        // The kill landed in a background commit: the manifest covers the graph only to its cut.
        const m = JSON.parse(fs.readFileSync(path.join(dataDir, 'projects', P, 'knowledge_graph.search', 'manifest.json'), 'utf8'));
        expect(m.graph.size).toBeLessThan(fs.statSync(path.join(dataDir, 'projects', P, 'knowledge_graph.ndjson')).size);
      }
      const got = await searchAll(dataDir);
      const expected = await fresh(dataDir);
      expect([point, nth, got]).toEqual([point, nth, expected]);
      expect(expected[0]!.length).toBeGreaterThan(0);
    }
  }, 180_000);
});
