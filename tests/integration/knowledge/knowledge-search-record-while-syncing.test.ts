import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as atomicWrite from '../../../src/kernel/files/atomic-write';
import * as writeFully from '../../../src/kernel/files/write-fully';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { ManualClock } from './support/knowledge-env';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import type { Logger } from '../../../src/kernel/logger';

/**
 * An add rewrites the tail record while the graph's fsync runs (SearchIndexFiles.recordWhileSyncing), once, not again
 * after it; when that fsync fails the graph is cut back, the record no longer matches it, and the index is rebuilt —
 * never trusted — before anything else reads or writes through it.
 */
describe('the tail record written in the fsync\'s time', () => {
  let dir: string;
  let warnings: string[];
  const P = 'rec';
  let k = 0;
  const node = (): StoredKnowledgeNode => {
    const i = k++;
    return {
      id: `r${i}`, project: P, projectContext: P, thought: `retry cache note ${i} ${i % 2 ? 'parser' : 'queue'}`, role: 'actor', tags: [], artifacts: [], parents: [],
      createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString(),
    };
  };
  const logger = (): Logger => ({ debug: () => undefined, info: () => undefined, error: () => undefined, warn: (msg) => void warnings.push(msg), child: () => logger() });
  const open = () => createNdjsonKnowledgeStore(dir, { logger: logger(), clock: new ManualClock() });
  const graph = () => path.join(dir, 'projects', P, 'knowledge_graph.ndjson');
  const add = (s: NdjsonKnowledgeStore, n = 3) => s.withLock(P, (g) => g.append(Array.from({ length: n }, () => node())));
  const QUERIES = ['retry', 'parser OR queue', 'note -parser'];
  const all = async (s: NdjsonKnowledgeStore) =>
    Promise.all(QUERIES.map(async (q) => (await new SearchNodes(s).execute({ projectContext: P, query: q, limit: 50 })).hits.map((h) => `${h.id}:${h.score}`)));
  const fresh = async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-rec-fresh-'));
    try {
      fs.mkdirSync(path.join(copy, 'projects', P), { recursive: true });
      fs.copyFileSync(graph(), path.join(copy, 'projects', P, 'knowledge_graph.ndjson'));
      return await all(createNdjsonKnowledgeStore(copy));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  };

  beforeEach(() => {
    k = 0;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-rec-'));
    warnings = [];
  });
  afterEach(() => {
    jest.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an add writes the record once, before its append has answered, naming the graph as the append left it', async () => {
    const a = open();
    await add(a);
    const events: string[] = [];
    const realAppend = writeFully.appendFully;
    jest.spyOn(writeFully, 'appendFully').mockImplementation(async (...args) => {
      const r = await realAppend(...args);
      events.push('appended');
      return r;
    });
    const realRecord = atomicWrite.writeRecordInPlace;
    jest.spyOn(atomicWrite, 'writeRecordInPlace').mockImplementation((file, data) => {
      events.push(`record ${JSON.parse(data.toString('utf8').split('\n')[0]!).graph.size}`);
      realRecord(file, data);
    });
    for (let i = 0; i < 3; i++) await add(a);
    const size = fs.statSync(graph()).size;
    expect(events.length).toBe(6);
    expect(events.filter((_, i) => i % 2 === 1)).toEqual(['appended', 'appended', 'appended']);
    expect(events[4]).toBe(`record ${size}`);
    expect(await all(open())).toEqual(await fresh());
    expect(warnings).toEqual([]);
  });

  it('a failed fsync: the append is cut back, the record written meanwhile is stale, the index rebuilt; searches answer as a fresh index', async () => {
    const a = open();
    await add(a, 5);
    const handle = await fsp.open(graph(), 'r');
    const proto = Object.getPrototypeOf(handle) as { sync: () => Promise<void> };
    await handle.close();
    const realSync = proto.sync;
    let failed = 0;
    jest.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
      await realSync.call(this);
      if (failed++ === 0) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    const sizeBefore = fs.statSync(graph()).size;
    await expect(add(a, 2)).rejects.toThrow(/EIO/);
    expect(fs.statSync(graph()).size).toBe(sizeBefore);
    jest.restoreAllMocks();
    // Another process, and this one: the record names a graph that is not there; neither trusts the index.
    expect(await all(open())).toEqual(await fresh());
    expect(await all(a)).toEqual(await fresh());
    expect(warnings.filter((w) => w.includes('rebuilt')).length).toBeGreaterThan(0);
    await add(a, 2);
    expect(await all(a)).toEqual(await fresh());
    expect(await all(open())).toEqual(await fresh());
  });
});
