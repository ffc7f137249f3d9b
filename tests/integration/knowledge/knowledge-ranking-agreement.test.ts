import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import type { KnowledgeStore } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { SearchNodes, type SearchNodesInput } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generateKnowledgeGraph, prng, WORDS, TAGS } = require('../../../bench/fixtures/knowledge-graph.js') as {
  generateKnowledgeGraph: (file: string, count: number, opts: { project: string; seed: number }) => Promise<unknown>;
  prng: (seed: number) => () => number;
  WORDS: string[];
  TAGS: string[];
};

/**
 * "The two stores agree" on search (docs/knowledge-graph.md, "Ranking"): the same nodes written into the NDJSON files
 * (a real temp folder, their index) and a real PostgreSQL, then the same queries on both. Both rank by PostgreSQL's
 * score — Σ idf × impact over the query's terms, impact ts_rank's of the term alone (the files compute it from their
 * per-field counts, domain/search/impact.ts), added in the same order in float64 — and break ties newest first, so:
 * - on the contract suite's corpus (tests/contracts/knowledge-search.contract.ts), every query of the suite: the same
 *   first page in the same order with the same scores, to the bit (so the same top hit), and the same total;
 * - on 3,000 generated nodes (bench/fixtures/knowledge-graph.js: 34 words, so ties and idf matter) and 215 generated
 *   queries (words, two and three words, phrases, prefixes, exclusions, OR, tag, role and time filters): the same
 *   first page in order with the same scores and the same exact total for every query, and the same set of ids over
 *   every page where there are at most 300 (the figures are printed too);
 * - queries in other scripts (Greek with a final Σ, Devanagari, CJK, Cyrillic, ø, æ, ß, ½): the same nodes found (the
 *   query's words are folded by the files' code on both stores, so before 40bd068 PostgreSQL missed `ΟΔΟΣ`).
 */

const P = 'demo';
const C = 'contract';
const U = 'unicode';
const COUNT = 3000;

/** Nodes in other scripts: a query folded and stemmed by the files' code must find them on PostgreSQL too. */
const UNICODE_NODES: StoredKnowledgeNode[] = [
  'Η ΟΔΟΣ προς την πόλη', 'Øresunds bridges and straße signs', 'हिन्दी भाषा का पाठ', 'Les cafés de Paris', 'Half is ½ of it',
  '東京タワー の 写真', 'Москва и москвами', 'Ærøskøbing æsthetics and œuvres',
].map((thought, i) => ({ id: `u${i}`, project: U, projectContext: U, thought, role: 'actor', tags: [], artifacts: [], parents: [], createdAt: new Date(Date.parse('2026-11-30T09:00:00Z') + i * 60_000).toISOString() }));

let pg: TestPostgres;
let db: PgDatabase;
let dir: string;
let files: KnowledgeStore;
let postgres: KnowledgeStore;
let nodes: StoredKnowledgeNode[];

/** The contract suite's corpus (its `corpus()` and its pager nodes), in project C. */
function contractNodes(): StoredKnowledgeNode[] {
  let clock = Date.parse('2026-11-30T10:00:00.000Z');
  const node = (id: string, thought: string, extra: Partial<StoredKnowledgeNode> = {}): StoredKnowledgeNode => ({
    id, project: C, projectContext: C, thought, role: 'actor', tags: [], artifacts: [], parents: [], createdAt: new Date((clock += 60_000)).toISOString(), ...extra,
  });
  return [
    node('a1', 'Retry the upload with exponential backoff when the store answers busy'),
    node('a2', 'Backoff is exponential here, then we retry', { tags: ['net'] }),
    node('a3', 'Caching the parsed schema made validation faster', { tags: ['perf'], role: 'critic' }),
    node('a4', 'The cache was cold after a restart', { tags: ['perf', 'ops'] }),
    node('a5', 'Flaky retry test on CI, quarantined', { tags: ['test'] }),
    node('a6', 'Use redis for sessions'),
    node('a7', 'Memcached would do for sessions too'),
    node('a8', 'Le café est prêt: CAFÉ with accents', { artifacts: [{ name: 'notes.md', path: 'docs/retry-policy.md' }] }),
    ...Array.from({ length: 7 }, (_, i) => node(`p${i}`, `pager word ${'pager '.repeat(i)}`.trim())),
    node('late1', 'pager pager pager pager pager pager pager pager pager'),
    node('late2', 'pager'),
  ];
}

beforeAll(async () => {
  pg = await startTestPostgres();
  db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  await migrate(db, knowledgeMigrations);
  postgres = new PgKnowledgeStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-agree-'));
  files = createNdjsonKnowledgeStore(path.join(dir, 'data'));
  const file = path.join(dir, 'graph.ndjson');
  await generateKnowledgeGraph(file, COUNT, { project: P, seed: 23 });
  nodes = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => ({ ...(JSON.parse(l) as StoredKnowledgeNode), projectContext: P }));
  for (const store of [files, postgres]) {
    for (let i = 0; i < nodes.length; i += 500) await store.withLock(P, (g) => g.append(nodes.slice(i, i + 500)));
    await store.withLock(C, (g) => g.append(contractNodes()));
    await store.withLock(U, (g) => g.append(UNICODE_NODES));
  }
}, 300_000);
afterAll(async () => {
  await db?.close();
  await pg?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

type Query = Partial<SearchNodesInput> & { query: string };

async function page(store: KnowledgeStore, input: Query, project = P) {
  const r = await new SearchNodes(store).execute({ projectContext: project, ...input } as SearchNodesInput);
  return { ids: r.hits.map((h) => h.id), hits: r.hits.map((h) => [h.id, h.score]), total: r.total, exact: r.totalExact, next: r.nextCursor };
}

/** Every hit of a query, paging 100 at a time. */
async function everyHit(store: KnowledgeStore, input: Query): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null | undefined;
  do {
    const r = await page(store, { ...input, limit: 100, ...(cursor ? { cursor } : {}) });
    seen.push(...r.ids);
    cursor = r.next;
  } while (cursor);
  return [...seen].sort();
}


/** Every query of the search contract that looks for something in its corpus. */
const CONTRACT_QUERIES: Query[] = [
  { query: 'retries' }, { query: 'retry backoff' }, { query: 'retry' }, { query: '"exponential backoff"' }, { query: 'exponential backoff' },
  { query: 'cach*' }, { query: 'memc*' }, { query: 'retry -flaky' }, { query: 'retry -"exponential backoff"' }, { query: 'redis OR memcached' },
  { query: 'sessions redis OR memcached' }, { query: 'sessions redis' }, { query: 'cafe' }, { query: 'CAFÉ' }, { query: 'PRET' },
  { query: 'cache OR caching', tags: ['perf'] }, { query: 'cache OR caching', tags: ['perf', 'ops'] }, { query: 'cach*', role: 'critic' },
  { query: 'retry', since: '2026-11-30T10:02:00.000Z' }, { query: 'retry', until: '2026-11-30T10:02:00.000Z' },
  { query: '^(exponential|backoff)+.*$' }, { query: "sessions') OR 1=1; --" }, { query: 'nothingmatchesthis' },
  { query: 'pager', limit: 3 }, { query: 'pager', limit: 100 }, { query: 'pager word' }, { query: '"pager pager"' },
];

function generatedQueries(): Query[] {
  const rand = prng(5);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const out: Query[] = [];
  for (const w of WORDS) out.push({ query: w });
  for (let i = 0; i < 30; i++) out.push({ query: `${pick(WORDS)} ${pick(WORDS)}` });
  for (let i = 0; i < 30; i++) out.push({ query: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}` });
  for (let i = 0; i < 20; i++) {
    const words = pick(nodes).thought.toLowerCase().replace(/\./g, '').split(' ');
    const at = Math.floor(rand() * (words.length - 2));
    out.push({ query: `"${words.slice(at, at + 2 + Math.floor(rand() * 2)).join(' ')}"` });
  }
  for (const w of WORDS.slice(0, 12)) out.push({ query: `${w.slice(0, 3)}*` });
  for (let i = 0; i < 20; i++) out.push({ query: `${pick(WORDS)} -${pick(WORDS)}` });
  for (let i = 0; i < 20; i++) out.push({ query: `${pick(WORDS)} OR ${pick(WORDS)}` });
  for (let i = 0; i < 20; i++) out.push({ query: pick(WORDS), tags: [pick(TAGS)] });
  for (let i = 0; i < 10; i++) out.push({ query: pick(WORDS), role: pick(['actor', 'critic', 'summary'] as const) });
  for (let i = 0; i < 10; i++) out.push({ query: `${pick(WORDS)} ${pick(WORDS)}`, since: nodes[Math.floor(rand() * nodes.length)]!.createdAt });
  for (let i = 0; i < 10; i++) out.push({ query: pick(TAGS) });
  return out;
}

it('on the contract suite\u2019s corpus: the same first page in order, with the same scores, and the same total for every query', async () => {
  const differ: unknown[] = [];
  for (const q of CONTRACT_QUERIES) {
    const [a, b] = [await page(files, q, C), await page(postgres, q, C)];
    expect(a.exact && b.exact).toBe(true);
    if (JSON.stringify(a.hits) !== JSON.stringify(b.hits) || a.total !== b.total) differ.push({ q, files: a, postgresql: b });
  }
  expect(differ).toEqual([]);
  // Where BM25F's length normalization put the shorter node first (before index format 6): equal impacts, the newer.
  const tops = await Promise.all(['cach*', 'redis OR memcached', 'pager word'].map(async (query) => (await page(files, { query }, C)).ids[0]));
  expect(tops).toEqual(['a4', 'a7', 'p6']);
});

it('a query in another script finds the same nodes on both stores (the files fold and stem it as PostgreSQL does)', async () => {
  const cases: Array<[string, string[]]> = [
    ['ΟΔΟΣ', ['u0']], ['οδοσ', ['u0']], ['πόλη', ['u0']], ['øresund', ['u1']], ['Øresunds', ['u1']], ['STRASSE', []], ['straße', ['u1']],
    ['हिन्दी', ['u2']], ['café', ['u3']], ['"1 2"', ['u4']], ['½', ['u4']], ['東京タワー', ['u5']], ['москва', ['u6']], ['æsthetic', ['u7']], ['œuvre*', ['u7']],
    // Terms of several scripts in one score: added in the same (code point) order on both stores.
    ['straße øresunds bridges signs', ['u1']], ['москва OR ΟΔΟΣ OR πόλη OR café OR 東京タワー', ['u0', 'u6', 'u5', 'u3']],
  ];
  for (const [query, want] of cases) {
    const [a, b] = [await page(files, { query }, U), await page(postgres, { query }, U)];
    expect([query, a.ids, a.total]).toEqual([query, want, want.length]);
    expect([query, b.ids, b.total]).toEqual([query, want, want.length]);
    expect([query, a.hits]).toEqual([query, b.hits]);
  }
});

it('on 3,000 generated nodes: the same first page in order with the same scores, and the same matches, for every generated query', async () => {
  const qs = generatedQueries();
  expect(qs.length).toBe(215);
  const differ: unknown[] = [];
  let top = 0;
  let first = 0;
  let compared = 0;
  for (const q of qs) {
    const [a, b] = [await page(files, q), await page(postgres, q)];
    expect(a.exact && b.exact).toBe(true);
    if (a.total !== b.total) differ.push({ q, files: a.total, postgresql: b.total });
    else if (JSON.stringify(a.hits) !== JSON.stringify(b.hits)) differ.push({ q, files: a.hits, postgresql: b.hits });
    else if (a.total <= 300) {
      compared++;
      const [x, y] = [await everyHit(files, q), await everyHit(postgres, q)];
      if (JSON.stringify(x) !== JSON.stringify(y)) differ.push({ q, onlyFiles: x.filter((id) => !y.includes(id)), onlyPostgresql: y.filter((id) => !x.includes(id)) });
    }
    if (a.ids[0] === b.ids[0]) top++;
    if (JSON.stringify(a.hits) === JSON.stringify(b.hits)) first++;
  }
  console.log(`ranking agreement on ${qs.length} generated queries: same top hit ${top} (${((100 * top) / qs.length).toFixed(0)}%), same first page of 10 in order with the same scores ${first} (${((100 * first) / qs.length).toFixed(0)}%)`);
  expect(differ).toEqual([]);
  // Enough queries compared hit for hit (the rest by their exact totals).
  expect(compared).toBeGreaterThan(30);
}, 600_000);
