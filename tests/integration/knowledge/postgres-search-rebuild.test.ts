import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import type { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, freshKnowledgeStore, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';
import { catchUpPostings } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-catch-up';

/**
 * Every search structure the write path keeps (the stored vector, postings, term counts, term bitmaps, level bitmaps
 * and level counts) after random sequences of adds, deletes, restores and updates on a real PostgreSQL, compared with
 * the same structures built from scratch: the live rows copied into a database at migration 4 (nodes, no search
 * structure) and migrated from there, so the migrations' own SQL indexes them. What a delete leaves behind and the
 * rebuild does not have is allowed only where the queries ignore it: rows of zero documents or of no set bit, and a
 * level's highest impact above the rebuilt one (an upper bound, never lowered).
 *
 * Appends post nothing (migration 14): a search's catch-up posts the rows past the project's posted_up_to. So the
 * writes are interleaved with catch-ups — some before a write, some racing it on another pool connection (the
 * project's row lock serializes them), two at once — deletes and updates fall on posted and unposted rows alike, and
 * the comparison is made after a last catch-up.
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
  const done = { add: 0, delete: 0, restore: 0, update: 0, raced: 0, caughtUp: 0, unpostedTouched: 0, postedTouched: 0 };
  /** Of these ids, how many are posted and how many not yet (the race cases need both). */
  const tally = async (p: string, ids: Iterable<string>) => {
    const [r] = await db.query<{ u: string; k: string }>(
      `SELECT count(*) FILTER (WHERE n.seq > j.posted_up_to)::text AS u, count(*) FILTER (WHERE n.seq <= j.posted_up_to)::text AS k
       FROM wg_knowledge_nodes n JOIN wg_knowledge_projects j ON j.project = n.project WHERE n.project = $1 AND n.id = ANY($2::text[])`,
      [p, [...ids]],
    );
    done.unpostedTouched += Number(r!.u);
    done.postedTouched += Number(r!.k);
  };
  const take = <T>(xs: T[], n: number) => Array.from({ length: Math.min(n, xs.length) }, () => xs.splice(Math.floor(rand() * xs.length), 1)[0]!);
  for (let step = 0; step < steps; step++) {
    const p = projects[rand() < 0.75 ? 0 : 1]!;
    const ids = live.get(p)!;
    const r = rand();
    const race = rand();
    // Before the write: a search's catch-up of both projects (so later deletes and updates meet posted rows too).
    if (race < 0.15) {
      await Promise.all(projects.map((x) => catchUpPostings(db, x)));
      done.caughtUp++;
    }
    // The write itself, alone or racing one catch-up (or two at once) on other connections of the pool.
    const write = async (fn: () => Promise<unknown>) => {
      if (race < 0.4) return fn();
      done.raced++;
      await Promise.all([fn(), catchUpPostings(db, p), ...(race > 0.8 ? [catchUpPostings(db, p)] : [])]);
    };
    if (step === Math.floor(steps / 2)) await db.query(`SELECT setval('wg_knowledge_seq', (SELECT (max(seq) / 8192 + 1) * 8192 - 20 FROM wg_knowledge_nodes))`); // straddle a chunk
    if (r < 0.4 || ids.length < 10) {
      const n = 1 + Math.floor(rand() * 60);
      const nodes = generateNodes(text(p), n, seed * 1000 + step, made.get(p)!);
      made.set(p, made.get(p)! + n);
      await write(() => store.withLock(p, (g) => g.append(nodes)));
      ids.push(...nodes.map((x) => x.id));
      done.add++;
    } else if (r < 0.6) {
      const chosen = take(ids, 1 + Math.floor(rand() * 8));
      await tally(p, chosen);
      let gone: StoredKnowledgeNode[] = [];
      await write(async () => (gone = await deleteNodes(store, p, chosen)));
      deleted.get(p)!.push(...gone);
      done.delete++;
    } else if (r < 0.75 && deleted.get(p)!.length) {
      const back = take(deleted.get(p)!, 1 + Math.floor(rand() * 4));
      await write(() => store.withLock(p, (g) => g.restore(back)));
      ids.push(...back.map((x) => x.id));
      done.restore++;
    } else {
      const chosen = new Set(Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ids[Math.floor(rand() * ids.length)]!));
      const [other] = generateNodes(text(p), 1, seed * 7919 + step);
      const doubled = rand() < 0.3;
      const retagged = rand() < 0.5;
      await tally(p, chosen);
      await write(() =>
        store.withLock(p, (g) => g.updateNodes(chosen, (x) => ({ ...x, thought: doubled ? `${x.thought} ${x.thought}` : other!.thought, tags: retagged ? other!.tags : x.tags }))),
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
    const done = await randomWrites(store, db, seed, 80);
    expect(Math.min(...Object.values(done))).toBeGreaterThan(0);
    // What a search does first: every row past posted_up_to posted.
    for (const p of ['ra', 'rb']) await catchUpPostings(db, p);
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

it('a catch-up waits for the writer holding the project lock, then posts what it left: an unposted row deleted, one updated, a posted one updated', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  let ref: PgDatabase | undefined;
  try {
    const nodes = generateNodes(text('ra'), 40, 99);
    await store.withLock('ra', (g) => g.append(nodes.slice(0, 20)));
    await catchUpPostings(db, 'ra');
    await store.withLock('ra', (g) => g.append(nodes.slice(20)));
    const [posted, unposted, doomed] = [nodes[3]!, nodes[25]!, nodes[30]!];
    let finished = false;
    let racing: Promise<void> | undefined;
    await store.withLock('ra', async (g) => {
      await g.updateNodes(new Set([posted.id, unposted.id]), (x) => ({ ...x, thought: `${x.thought} hotel hotel india` }));
      await g.deleteWithBackup([{ nodeId: doomed.id, project: 'ra', reason: null, timestamp: '2026-12-04T05:00:00.000Z', nodeData: doomed }]);
      // Another connection's catch-up, started while this writer holds the lock: it must wait, not skip or post now.
      racing = catchUpPostings(db, 'ra').then(() => {
        finished = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(finished).toBe(false);
    });
    await racing;
    const [row] = await db.query<{ posted: string; top: string }>(
      `SELECT posted_up_to::text AS posted, (SELECT max(seq) FROM wg_knowledge_nodes WHERE project = 'ra')::text AS top FROM wg_knowledge_projects WHERE project = 'ra'`,
    );
    expect(row!.posted).toBe(row!.top);
    ref = await rebuilt(db);
    const [kept, want] = [await structures(db), await structures(ref)];
    for (const name of Object.keys(STRUCTURES)) expect({ name, rows: kept[name] }).toEqual({ name, rows: want[name] });
    const seq = await seqOf(db, unposted.id);
    expect(kept.postings.some((r) => r.endsWith(` ${seq}`))).toBe(true);
  } finally {
    await ref?.close();
    await db.close();
  }
}, 120_000);

async function seqOf(db: PgDatabase, id: string): Promise<string> {
  const [r] = await db.query<{ seq: string }>('SELECT seq::text AS seq FROM wg_knowledge_nodes WHERE id = $1', [id]);
  return r!.seq;
}
