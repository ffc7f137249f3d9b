import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import type { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, freshKnowledgeStore, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * Every search structure the write path keeps (the stored vector, postings, term counts, term bitmaps, level bitmaps
 * and level counts) after random sequences of adds, deletes, restores and updates on a real PostgreSQL, compared with
 * the same structures built from scratch: the live rows copied into a database at migration 4 (nodes, no search
 * structure) and migrated from there, so the migrations' own SQL indexes them. What a delete leaves behind and the
 * rebuild does not have is allowed only where the queries ignore it: rows of zero documents or of no set bit, and a
 * level's highest impact above the rebuilt one (an upper bound, never lowered).
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet'.split(' ');
const text = (project: string): NodeText => ({ project, words: WORDS, minWords: 2, spanWords: 20, tags: WORDS, tagRate: 0.4, artifactRate: 0.2 });

/** Each structure as sorted text rows, with what the queries ignore left out (see above). */
const STRUCTURES: Record<string, string> = {
  vectors: `SELECT project || ' ' || seq || ' ' || search::text AS r FROM wg_knowledge_nodes`,
  postings: `SELECT project || ' ' || term || ' ' || impact::text || ' ' || seq AS r FROM wg_knowledge_postings`,
  terms: `SELECT project || ' ' || term || ' ' || docs AS r FROM wg_knowledge_terms WHERE docs <> 0`,
  term_bits: `SELECT project || ' ' || term || ' ' || chunk || ' ' || bits::text AS r FROM wg_knowledge_term_bits WHERE bit_count(bits) > 0`,
  level_bits: `SELECT project || ' ' || term || ' ' || level || ' ' || chunk || ' ' || bits::text AS r FROM wg_knowledge_level_bits WHERE bit_count(bits) > 0`,
  level_docs: `SELECT project || ' ' || term || ' ' || level || ' ' || docs AS r FROM wg_knowledge_term_levels WHERE docs <> 0`,
};

async function structures(db: PgDatabase): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, sql] of Object.entries(STRUCTURES)) out[name] = (await db.query<{ r: string }>(`${sql} ORDER BY 1`)).map((x) => x.r);
  return out;
}

/** The live rows of `from` copied into a database at migration 4, then migrated to the last migration. */
async function rebuilt(from: PgDatabase): Promise<PgDatabase> {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 2 });
  await migrate(db, knowledgeMigrations.filter((m) => m.version <= 4));
  const rows = await from.query<Record<string, unknown>>('SELECT project, id, seq::text AS seq, role, tags, parents, mentions, node::text AS node FROM wg_knowledge_nodes');
  const col = (k: string) => rows.map((r) => (Array.isArray(r[k]) ? JSON.stringify(r[k]) : r[k]));
  await db.query(
    `INSERT INTO wg_knowledge_nodes (project, id, seq, role, tags, parents, mentions, node)
     SELECT u.project, u.id, u.seq, u.role, ARRAY(SELECT json_array_elements_text(u.tags::json)), ARRAY(SELECT json_array_elements_text(u.parents::json)),
            ARRAY(SELECT json_array_elements_text(u.mentions::json)), u.node::json
     FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u(project, id, seq, role, tags, parents, mentions, node)`,
    ['project', 'id', 'seq', 'role', 'tags', 'parents', 'mentions', 'node'].map(col),
  );
  await migrate(db, knowledgeMigrations);
  return db;
}

/** Levels whose kept highest impact is below the rebuilt one (a bound that no longer bounds). */
async function boundsBelow(db: PgDatabase, ref: PgDatabase): Promise<string[]> {
  const want = await ref.query<{ k: string; m: string }>(`SELECT project || ' ' || term || ' ' || level AS k, max_impact::text AS m FROM wg_knowledge_term_levels WHERE docs > 0`);
  const kept = new Map((await db.query<{ k: string; m: string }>(`SELECT project || ' ' || term || ' ' || level AS k, max_impact::text AS m FROM wg_knowledge_term_levels`)).map((r) => [r.k, r.m]));
  return want.filter((w) => !(Number(kept.get(w.k) ?? -1) >= Number(w.m))).map((w) => `${w.k}: kept ${kept.get(w.k)}, rebuilt ${w.m}`);
}

/** `steps` random writes on two projects: adds (batches of 1–60), deletes, restores of deleted nodes, updates. */
async function randomWrites(store: PgKnowledgeStore, db: PgDatabase, seed: number, steps: number): Promise<Record<string, number>> {
  const rand = prng(seed);
  const projects = ['ra', 'rb'];
  const live = new Map<string, string[]>(projects.map((p) => [p, []]));
  const deleted = new Map<string, StoredKnowledgeNode[]>(projects.map((p) => [p, []]));
  const made = new Map<string, number>(projects.map((p) => [p, 0]));
  const done = { add: 0, delete: 0, restore: 0, update: 0 };
  const take = <T>(xs: T[], n: number) => Array.from({ length: Math.min(n, xs.length) }, () => xs.splice(Math.floor(rand() * xs.length), 1)[0]!);
  for (let step = 0; step < steps; step++) {
    const p = projects[rand() < 0.75 ? 0 : 1]!;
    const ids = live.get(p)!;
    const r = rand();
    if (step === Math.floor(steps / 2)) await db.query(`SELECT setval('wg_knowledge_seq', (SELECT (max(seq) / 8192 + 1) * 8192 - 20 FROM wg_knowledge_nodes))`); // straddle a chunk
    if (r < 0.4 || ids.length < 10) {
      const n = 1 + Math.floor(rand() * 60);
      const nodes = generateNodes(text(p), n, seed * 1000 + step, made.get(p)!);
      made.set(p, made.get(p)! + n);
      await store.withLock(p, (g) => g.append(nodes));
      ids.push(...nodes.map((x) => x.id));
      done.add++;
    } else if (r < 0.6) {
      const gone = await deleteNodes(store, p, take(ids, 1 + Math.floor(rand() * 8)));
      deleted.get(p)!.push(...gone);
      done.delete++;
    } else if (r < 0.75 && deleted.get(p)!.length) {
      const back = take(deleted.get(p)!, 1 + Math.floor(rand() * 4));
      await store.withLock(p, (g) => g.restore(back));
      ids.push(...back.map((x) => x.id));
      done.restore++;
    } else {
      const chosen = new Set(Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ids[Math.floor(rand() * ids.length)]!));
      const [other] = generateNodes(text(p), 1, seed * 7919 + step);
      await store.withLock(p, (g) =>
        g.updateNodes(chosen, (x) => ({ ...x, thought: rand() < 0.3 ? `${x.thought} ${x.thought}` : other!.thought, tags: rand() < 0.5 ? other!.tags : x.tags })),
      );
      done.update++;
    }
  }
  return done;
}

it.each([1, 2])('after random adds, deletes, restores and updates (seed %i) every search structure equals one rebuilt by the migrations', async (seed) => {
  const { db, store } = await freshKnowledgeStore(pg);
  let ref: PgDatabase | undefined;
  try {
    const done = await randomWrites(store, db, seed, 60);
    expect(Math.min(...Object.values(done))).toBeGreaterThan(0);
    ref = await rebuilt(db);
    const [kept, want] = [await structures(db), await structures(ref)];
    expect(want.postings.length).toBeGreaterThan(500);
    expect(want.level_bits.length).toBeGreaterThan(10);
    for (const name of Object.keys(STRUCTURES)) expect({ name, rows: kept[name] }).toEqual({ name, rows: want[name] });
    expect(await boundsBelow(db, ref)).toEqual([]);
  } finally {
    await ref?.close();
    await db.close();
  }
}, 300_000);
