import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { termImpact } from '../../../src/modules/knowledge/domain/search';
import { codePointOrder } from '../../../src/modules/knowledge/infrastructure/search-index/search-plan';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * The files' impact (domain/search/impact.ts, from a node's occurrence counts of a term per field) is PostgreSQL's to
 * the bit: the impact PostgreSQL stores for the same node (wg_knowledge_postings_of over wg_knowledge_vector, the
 * search column's own functions) for every count triple within the search limits that this can afford — the thought's
 * count 0..250 with the tags' and artifacts' 0..4, the tags' and the artifacts' 0..250 with the others small — and
 * the limits' edges: 250 occurrences spread over the fields in a node of 16,000 words. Past the limits (nodes add_nodes
 * refuses, but an old graph or a db import may hold), the position caps are emulated too — 255 positions from one
 * field, 256 in the vector — and the one not emulated is shown: past position 16,383 PostgreSQL keeps one position.
 */

let pg: TestPostgres;
let db: PgDatabase;
beforeAll(async () => {
  pg = await startTestPostgres();
  db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 2 });
  await migrate(db, knowledgeMigrations);
}, 120_000);
afterAll(async () => {
  await db?.close();
  await pg?.stop();
});

type Triple = [number, number, number];

/**
 * PostgreSQL's impact of `kiwi` (its own lexeme) in a node holding it a, b, c times in its thought, tags and
 * artifacts, after `pad` words of another term at the thought's start; as the float8 the float4 is.
 */
async function pgImpacts(triples: readonly Triple[], pad = 0): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < triples.length; i += 1500) {
    const part = triples.slice(i, i + 1500);
    const rows = await db.query<{ impact: string | null }>(
      `SELECT (SELECT p.impact::float8::text FROM wg_knowledge_postings_of(wg_knowledge_vector(json_build_object(
           'thought', repeat('pad ', $4::int) || repeat('kiwi ', t.a),
           'tags', (SELECT coalesce(json_agg('kiwi'::text), '[]') FROM generate_series(1, t.b)),
           'artifacts', (SELECT coalesce(json_agg(json_build_object('name', 'kiwi')), '[]') FROM generate_series(1, t.c))))) p
         WHERE p.term = 'kiwi') AS impact
       FROM unnest($1::int[], $2::int[], $3::int[]) WITH ORDINALITY t(a, b, c, i) ORDER BY t.i`,
      [part.map((t) => t[0]), part.map((t) => t[1]), part.map((t) => t[2]), pad],
    );
    out.push(...rows.map((r) => Number(r.impact)));
  }
  return out;
}

function differing(triples: readonly Triple[], got: readonly number[]): unknown[] {
  return triples.flatMap((t, i) => (termImpact(...t) === got[i] ? [] : [{ counts: t, files: termImpact(...t), postgresql: got[i] }]));
}

it('equals PostgreSQL bit for bit over every count triple within the limits it can afford', async () => {
  const triples: Triple[] = [];
  for (let a = 0; a <= 250; a++) for (let b = 0; b <= 4; b++) for (let c = 0; c <= 4; c++) if (a + b + c > 0) triples.push([a, b, c]);
  for (let x = 5; x <= 250; x++) for (let a = 0; a <= 1; a++) for (let y = 0; y <= 2; y++) triples.push([a, x, y], [a, y, x]);
  // 250 occurrences in all (the repeats limit), spread over the fields.
  for (let a = 0; a <= 250; a += 10) for (let b = 0; a + b <= 250; b += 10) triples.push([a, b, 250 - a - b]);
  const got = await pgImpacts(triples);
  expect(got.every((v) => v > 0 && v <= 1)).toBe(true);
  expect(differing(triples, got)).toEqual([]);
  expect(triples.length).toBeGreaterThan(8000);
  // Not a constant: more occurrences rank higher, one A beats three Bs.
  expect(termImpact(2, 0, 0)).toBeGreaterThan(termImpact(1, 0, 0));
  expect(termImpact(1, 0, 0)).toBeGreaterThan(termImpact(0, 3, 0));
}, 120_000);

it('equals PostgreSQL at the words limit (16,000 words, positions up to 16,000) and past the repeat limit (the 255 and 256 position caps)', async () => {
  const atLimit: Triple[] = [[250, 0, 0], [100, 50, 100], [0, 250, 0], [0, 0, 250], [1, 1, 1]];
  const pads = atLimit.map((t) => 16_000 - t[0] - t[1] - t[2]);
  for (let i = 0; i < atLimit.length; i++) expect(differing([atLimit[i]!], await pgImpacts([atLimit[i]!], pads[i]))).toEqual([]);
  const past: Triple[] = [[255, 0, 0], [256, 0, 0], [300, 0, 0], [0, 300, 0], [0, 0, 300], [250, 10, 0], [255, 5, 5], [200, 50, 50], [0, 255, 10], [10, 255, 255], [300, 300, 300]];
  expect(differing(past, await pgImpacts(past))).toEqual([]);
  expect(termImpact(300, 300, 300)).toBe(termImpact(255, 1, 0));
});

it('past position 16,383 PostgreSQL keeps one position of a term (the files count every occurrence): the one limit not emulated', async () => {
  const [got] = await pgImpacts([[3, 0, 0]], 16_500);
  expect(got).toBe(termImpact(1, 0, 0));
  expect(got).not.toBe(termImpact(3, 0, 0));
});

it('PostgreSQL lists a query\u2019s terms in code point order (the order both stores add a score in), in a C.UTF-8 database and an ICU one', async () => {
  // A database whose default collation is linguistic (ICU's root locale: ø sorts as o, ß as ss).
  const admin = new PgDatabase(pg.adminUrl, { poolSize: 1 });
  const name = `wg_rank_icu_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'und' LOCALE 'C.UTF-8'`);
  const url = new URL(pg.adminUrl);
  url.pathname = `/${name}`;
  const icu = new PgDatabase(url.toString(), { poolSize: 1 });
  try {
    await migrate(icu, knowledgeMigrations);
    const [collation] = await icu.query<{ p: string }>(`SELECT datlocprovider::text AS p FROM pg_database WHERE datname = current_database()`);
    expect(collation!.p).toBe('i');
    for (const d of [db, icu]) {
      const rows = await d.query<{ terms: Array<{ term: string }> | null }>(
        `SELECT s.o_terms AS terms FROM wg_knowledge_search_statistics('p', $1::text[], ARRAY[]::text[], ARRAY[]::text[], false) s`,
        [['pear', 'øresund', 'straße', 'strasz', 'ωmega', 'alpha', 'Zulu', 'москва']],
      );
      const terms = rows[0]!.terms!.map((t) => t.term);
      expect(terms.length).toBe(8);
      // 'ø' after 'p' and 'ß' after 'z', where a linguistic collation sorts them as o and ss.
      expect(terms).toEqual([...terms].sort(codePointOrder));
      expect(terms.indexOf('øresund')).toBeGreaterThan(terms.indexOf('pear'));
    }
  } finally {
    await icu.close();
    await admin.query(`DROP DATABASE ${name}`);
    await admin.close();
  }
}, 60_000);
