import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_MODULES, transpileSrc } from './support/transpile-src';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import type { KnowledgeStore } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * Paging stable under concurrent adds (issue 23): a writer PROCESS adds matching nodes without pause while this one
 * pages a search to its end. No hit is repeated; every node that existed when the first page was asked for is on
 * some page, and none added after the first page's answer; scores never rise from one hit to the next across pages.
 * Each page waits (bounded) until the writer has added more since the previous one, so adds fall between every two
 * pages. On the NDJSON files (a writer process appending under the lock, this one reading without it) and on
 * PostgreSQL (the embedded server of tests/helpers), without and with the search cache.
 */
const P = 'live-paging';

const WRITER_JS = `
const fs = require('node:fs');
const [srcDir, kind, target, log] = process.argv.slice(2);
const { PgDatabase } = kind === 'pg' ? require(srcDir + '/kernel/postgres/pg-database') : {};
const store = kind === 'pg'
  ? new (require(srcDir + '/modules/knowledge/infrastructure/postgres/pg-knowledge-store').PgKnowledgeStore)(new PgDatabase(target, { poolSize: 1 }))
  : require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store').createNdjsonKnowledgeStore(target, { lock: { staleMs: 2000, waitMs: 20000 } });
const words = ['retry', 'backoff', 'cache', 'budget'];
(async () => {
  for (let i = 0; ; i++) {
    // Some late nodes outrank every seeded one (many "pager"s, short), some rank last.
    const nodes = Array.from({ length: 1 + (i % 3) }, (_, k) => ({
      id: 'late-' + i + '-' + k, project: '${P}', projectContext: '${P}',
      thought: (k === 0 ? 'pager '.repeat(1 + (i % 9)) : 'pager ' + words[(i + k) % 4] + ' trailing words to lower its rank ' + i),
      role: 'actor', tags: [], artifacts: [], parents: [], createdAt: new Date(Date.UTC(2026, 1, 1, 0, 0, i % 60)).toISOString(),
    }));
    // Logged before (the add may be seen from here on) and after (it is committed).
    fs.appendFileSync(log, JSON.stringify({ begin: nodes.map((n) => n.id) }) + '\\n');
    await store.withLock('${P}', (g) => g.append(nodes));
    fs.appendFileSync(log, JSON.stringify({ done: nodes.map((n) => n.id) }) + '\\n');
  }
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;

interface WriterLog {
  begun: string[];
  done: string[];
  batches: number;
}

function readLog(file: string): WriterLog {
  const out: WriterLog = { begun: [], done: [], batches: 0 };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    let rec: { begin?: string[]; done?: string[] };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      continue; // a line being written
    }
    if (rec.begin) out.begun.push(...rec.begin);
    if (rec.done) {
      out.done.push(...rec.done);
      out.batches++;
    }
  }
  return out;
}

/** Resolves once the writer has committed more than `batches` adds (polled; fails after `ms`). */
async function writerPast(file: string, batches: number, child: ChildProcess, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (readLog(file).batches <= batches) {
    if (child.exitCode !== null) throw new Error(`the writer exited ${child.exitCode}`);
    if (Date.now() > until) throw new Error(`the writer made no add past ${batches} in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const node = (id: string, thought: string): StoredKnowledgeNode => ({
  id,
  project: P,
  projectContext: P,
  thought,
  role: 'actor',
  tags: [],
  artifacts: [],
  parents: [],
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('paging a search to its end while another process adds matching nodes', () => {
  let tmp: string;
  let srcDir: string;
  let script: string;
  let pg: TestPostgres;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-live-paging-'));
    srcDir = transpileSrc(path.join(tmp, 'build'));
    script = path.join(tmp, 'writer.js');
    fs.writeFileSync(script, WRITER_JS);
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await pg?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const pageThrough = async (name: string, store: KnowledgeStore, kind: 'ndjson' | 'pg', target: string) => {
    // Seeded: 40 matches of varied rank (term frequency, length), and one that does not match.
    const seeded = Array.from({ length: 40 }, (_, i) => node(`seed-${i}`, `pager ${'pager '.repeat(i % 7)}note ${'filler '.repeat(i % 5)}${i}`));
    await store.withLock(P, (g) => g.append([...seeded, node('other', 'nothing to see')]));
    const log = path.join(tmp, `${name}.log`);
    fs.writeFileSync(log, '');
    const child = spawn(process.execPath, [script, srcDir, kind, target, log], { env: { ...process.env, NODE_PATH: NODE_MODULES }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(child);
    try {
      await writerPast(log, 0, child);
      const search = new SearchNodes(store);
      const before = readLog(log);
      const first = await search.execute({ projectContext: P, query: 'pager', limit: 4 });
      const atFirst = readLog(log);
      const hits = [...first.hits];
      let cursor = first.nextCursor;
      let pages = 1;
      while (cursor) {
        await writerPast(log, readLog(log).batches, child);
        const page = await search.execute({ projectContext: P, query: 'pager', limit: 4, cursor });
        hits.push(...page.hits);
        cursor = page.nextCursor;
        // A search that pages on with what is added after its first page would never end.
        if (++pages > 100) throw new Error(`still paging after ${pages} pages of 4`);
      }
      const after = readLog(log);
      const ids = hits.map((h) => h.id);
      // Nothing repeated.
      expect(ids.length).toBe(new Set(ids).size);
      // Every node committed before the first page is on a page; nothing begun after the first page's answer is.
      const mustHave = [...seeded.map((n) => n.id), ...before.done];
      expect(mustHave.filter((id) => !ids.includes(id))).toEqual([]);
      const mayHave = new Set([...mustHave, ...atFirst.begun]);
      expect(ids.filter((id) => !mayHave.has(id))).toEqual([]);
      // In score order across the pages.
      const scores = hits.map((h) => h.score);
      expect(scores.filter((s, i) => i > 0 && s > scores[i - 1]!)).toEqual([]);
      // Adds really fell between the pages, and a fresh search sees them.
      expect(pages).toBeGreaterThanOrEqual(10);
      expect(after.batches - atFirst.batches).toBeGreaterThanOrEqual(pages - 1);
      const all = await search.execute({ projectContext: P, query: 'pager', limit: 500 });
      expect(all.hits.length).toBeGreaterThan(ids.length);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    }
  };

  it('on the NDJSON files', async () => {
    const dataDir = path.join(tmp, 'ndjson');
    await pageThrough('ndjson', createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000, waitMs: 20_000 } }), 'ndjson', dataDir);
  }, 120_000);

  it.each([
    ['without the search cache', 0],
    ['through the search cache', 8 << 20],
  ])('on PostgreSQL, %s', async (name, cacheBytes) => {
    const url = await pg.createTestDatabase();
    const db = new PgDatabase(url, { poolSize: 2 });
    try {
      await migrate(db, knowledgeMigrations);
      await pageThrough(`pg-${cacheBytes}`, new PgKnowledgeStore(db, { searchCacheBytes: cacheBytes }), 'pg', url);
    } finally {
      await db.close();
    }
  }, 120_000);
});
