// Where an add_nodes batch's time goes on PostgreSQL (issue 23's add bar): batches of 100 through the store's locked
// append onto BENCH_ADD_SEED (20,000) nodes, fsync on, on one database per variant of one server, the variants
// interleaved batch by batch (the order rotated each round). Each variant takes one part away from the schema as
// migrated, so its gain over 'full' is that part's cost:
//   full              the schema as migrated: since migration 14 appends post nothing, since migration 16 they leave
//                     the vector NULL (a search's catch-up computes and posts it);
//   vector by the insert  the generated column back (migration 3's, with migration 15's catch-up): before migration 16;
// The variants from here to 'GIN pending list 64 MB' are on that schema before migration 16 (the generated column):
//   posted by writes  migration 7's insert trigger back (every add posts its rows: before migration 14);
//   before migration 8 migration 3's vector function; 'bitmaps at fillfactor 50' the bitmap and count tables so;
//   -postings …       migration 7's insert trigger without that one part (postings rows, term counts, term levels, level
//                     bitmaps, term bitmaps); 'postings computed' keeps only the computation of the rows' postings;
//   empty trigger     a statement trigger that returns at once (the transition table alone);
//   triggers off      the generated tsvector column and its GIN index, no trigger;
//   no GIN            the tsvector column without its index; 'GIN fastupdate off', 'GIN pending list 64 MB' so;
// and on the schema as migrated, triggers off:
//   vector computed, not stored  a generated column that computes the vector and stores NULL (no index);
//   NULL vector + GIN            what an insert does since migration 16; '…, partial GIN' the index WHERE NOT NULL;
//   no large-node trigger        'full' without the BEFORE INSERT trigger of nodes over 64 KiB (triggers on);
//   no search         no search column (the bare append: issue 23's 'without');
//   … async commit    the same with synchronous_commit off, measurement only: the commit's fsync share.
// BENCH_ADD_TEXT=varied gives each node its own generator-like thought (more distinct terms per batch) instead of
// the main bench's one sentence. BENCH_ADD_VARIANTS='a;b;…' runs only those. Needs WORKGRAPH_BENCH_DATABASE_URL or
// starts its own embedded server; its databases are named wg_pgw_<pid>_<n> and dropped at the end.
// The catch-up (migration 14): on the 'full' and 'vector by the insert' variants, after the batches,
// BENCH_CATCHUP_NODES ('100,10000') nodes are appended (batches of 100) and the search's catch-up (catchUpPostings)
// timed alone, BENCH_CATCHUP_ROUNDS ('20,3') times each: what the first search after N adds pays, per node, beside
// the add's own cost per node.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, startPostgres } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');

const PROJECT = 'bench-k';
const SEED = Number(process.env.BENCH_ADD_SEED || 20_000);
const BATCHES = Number(process.env.BENCH_ADD_BATCHES || 40);
const VARIED = process.env.BENCH_ADD_TEXT === 'varied';
const PREFIX = `wg_pgw_${process.pid}_`;

/** The insert branch of the postings trigger (migration 7's) with only `parts` kept. */
function insertTrigger(parts) {
  const ctes = ['p AS MATERIALIZED (SELECT n.project, x.term, x.impact, n.seq FROM new_rows n, wg_knowledge_postings_of(n.search) x)'];
  if (parts.includes('postings')) ctes.push('ins AS (INSERT INTO wg_knowledge_postings (project, term, impact, seq) SELECT project, term, impact, seq FROM p)');
  if (parts.includes('counts'))
    ctes.push(`counts AS (INSERT INTO wg_knowledge_terms AS t (project, term, docs) SELECT project, term, count(*) FROM p GROUP BY project, term
      ON CONFLICT (project, term) DO UPDATE SET docs = t.docs + EXCLUDED.docs)`);
  if (parts.includes('levels'))
    ctes.push(`levels AS (INSERT INTO wg_knowledge_term_levels AS t (project, term, level, docs, max_impact)
      SELECT project, term, wg_knowledge_level(impact), count(*), max(impact) FROM p GROUP BY 1, 2, 3
      ON CONFLICT (project, term, level) DO UPDATE SET docs = t.docs + EXCLUDED.docs, max_impact = greatest(t.max_impact, EXCLUDED.max_impact))`);
  if (parts.includes('level bits'))
    ctes.push(`level_bits AS (INSERT INTO wg_knowledge_level_bits AS b (project, term, level, chunk, bits)
      SELECT p.project, p.term, l, p.seq / 8192, bit_or(wg_knowledge_bit(p.seq)) FROM p, generate_series(1, wg_knowledge_level(p.impact)) l GROUP BY 1, 2, 3, 4
      ON CONFLICT (project, term, level, chunk) DO UPDATE SET bits = b.bits | EXCLUDED.bits)`);
  if (parts.includes('term bits'))
    ctes.push(`term_bits AS (INSERT INTO wg_knowledge_term_bits AS b (project, term, chunk, bits)
      SELECT project, term, seq / 8192, bit_or(wg_knowledge_bit(seq)) FROM p GROUP BY 1, 2, 3
      ON CONFLICT (project, term, chunk) DO UPDATE SET bits = b.bits | EXCLUDED.bits)`);
  return [
    `CREATE FUNCTION wg_bench_ins() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE k bigint; BEGIN
       WITH ${ctes.join(', ')} SELECT count(*) INTO k FROM p; RETURN NULL; END $$`,
    'DROP TRIGGER IF EXISTS wg_knowledge_postings_ins ON wg_knowledge_nodes',
    'CREATE TRIGGER wg_knowledge_postings_ins AFTER INSERT ON wg_knowledge_nodes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_bench_ins()',
  ];
}

const ALL = ['postings', 'counts', 'levels', 'level bits', 'term bits'];
/** The schema before migration 16: the generated vector column (its GIN index) and migration 15's catch-up. */
function generated() {
  const { catchUpByNewestRow } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'infrastructure', 'postgres', 'knowledge-watermark-migration.js'));
  return [
    'DROP TRIGGER wg_knowledge_vector_large ON wg_knowledge_nodes',
    'DROP TRIGGER wg_knowledge_vector_upd ON wg_knowledge_nodes',
    'ALTER TABLE wg_knowledge_nodes DROP COLUMN search',
    'ALTER TABLE wg_knowledge_nodes ADD COLUMN search tsvector GENERATED ALWAYS AS (wg_knowledge_vector(node)) STORED',
    'CREATE INDEX wg_knowledge_nodes_search ON wg_knowledge_nodes USING gin (search)',
    catchUpByNewestRow(),
  ];
}
const before15 = (...ddl) => [() => generated(), ...ddl];
const without = (part) => before15(...insertTrigger(ALL.filter((p) => p !== part)));
const OFF = 'ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER USER';
const ASYNC = (db) => `ALTER DATABASE ${db} SET synchronous_commit = off`;
/** Migration 3's vector function (the one migration 8 replaces), as it was created. */
function migration3Vector() {
  const { knowledgeMigrations } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'infrastructure', 'postgres', 'knowledge-migrations.js'));
  const sql = knowledgeMigrations.find((m) => m.version === 3).sql.match(/CREATE FUNCTION wg_knowledge_vector[\s\S]*?'C'\);/)[0];
  return sql.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');
}
const BITS_TABLES = ['wg_knowledge_term_bits', 'wg_knowledge_level_bits', 'wg_knowledge_terms', 'wg_knowledge_term_levels'];
/** Tried for HOT updates of the 1 KB bitmap rows, not kept (docs/postgres.md "What an add costs"). */
const BITS_FILLFACTOR_50 = BITS_TABLES.flatMap((t) => [`ALTER TABLE ${t} SET (fillfactor = 50)`, `VACUUM FULL ${t}`]);
const VARIANTS = {
  full: [],
  'vector by the insert': before15(),
  'posted by writes': before15(...insertTrigger(ALL)),
  'before migration 8': before15(() => migration3Vector()),
  'bitmaps at fillfactor 50': before15(...BITS_FILLFACTOR_50),
  '-postings rows': without('postings'),
  '-term counts': without('counts'),
  '-term levels': without('levels'),
  '-level bits': without('level bits'),
  '-term bits': without('term bits'),
  'postings computed': before15(...insertTrigger([])),
  'empty trigger': before15(
    'CREATE FUNCTION wg_bench_ins() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$',
    'DROP TRIGGER IF EXISTS wg_knowledge_postings_ins ON wg_knowledge_nodes',
    'CREATE TRIGGER wg_knowledge_postings_ins AFTER INSERT ON wg_knowledge_nodes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_bench_ins()',
  ),
  'triggers off': before15(OFF),
  'triggers off, before migration 8': before15(OFF, () => migration3Vector()),
  'no GIN': before15(OFF, 'DROP INDEX wg_knowledge_nodes_search'),
  // Where triggers off's cost is (issue 23, before migration 16): the GIN index's pending list, the vector's CPU
  // without its bytes, and a plain column the insert leaves NULL (with the GIN index, or a partial one skipping NULLs).
  'GIN fastupdate off': before15(OFF, 'ALTER INDEX wg_knowledge_nodes_search SET (fastupdate = off)'),
  'GIN pending list 64 MB': before15(OFF, 'ALTER INDEX wg_knowledge_nodes_search SET (gin_pending_list_limit = 65536)'),
  'vector computed, not stored': [
    OFF,
    'DROP TRIGGER wg_knowledge_vector_large ON wg_knowledge_nodes',
    'ALTER TABLE wg_knowledge_nodes DROP COLUMN search',
    "ALTER TABLE wg_knowledge_nodes ADD COLUMN search tsvector GENERATED ALWAYS AS (CASE WHEN wg_knowledge_vector(node) IS NULL THEN ''::tsvector END) STORED",
  ],
  // (What migration 16 made of the insert: 'full' without its triggers; without only the large node's vector trigger.)
  'no large-node trigger': ['DROP TRIGGER wg_knowledge_vector_large ON wg_knowledge_nodes'],
  'NULL vector + GIN': [OFF],
  'NULL vector, partial GIN': [
    OFF,
    'DROP INDEX wg_knowledge_nodes_search',
    'CREATE INDEX wg_knowledge_nodes_search ON wg_knowledge_nodes USING gin (search) WHERE search IS NOT NULL',
  ],
  'no search': [OFF, 'ALTER TABLE wg_knowledge_nodes DROP COLUMN search'],
  'full, async commit': [ASYNC],
  'vector by the insert, async commit': before15(ASYNC),
  'no search, async commit': [OFF, 'ALTER TABLE wg_knowledge_nodes DROP COLUMN search', ASYNC],
};

function container(config) {
  require('reflect-metadata');
  const { createTestContainer } = require(path.join(ROOT, 'dist', 'server', 'container.js'));
  const { KnowledgeTokens } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
  return { c: createTestContainer(config), KnowledgeTokens };
}

async function admin(url, statements) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    for (const s of statements) {
      for (let i = 0; ; i++) {
        try {
          await c.query(s);
          break;
        } catch (e) {
          if (i > 20 || !/being accessed by other users/.test(String(e))) throw e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    }
  } finally {
    await c.end();
  }
}

const dbUrl = (url, name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();

const WORDS = 'parser cache store retry backoff index query plan review split module test fixture schema lock file stream append delete restore summary graph node edge parent child budget latency memory buffer worker queue batch'.split(' ');
const TAGS = ['plan', 'impl', 'review', 'bug', 'perf', 'docs', 'test', 'api', 'ui', 'infra', 'db', 'cli'];
let rng = 7;
const rand = () => ((rng = (rng * 1103515245 + 12345) % 2147483648) / 2147483648);
let nextId = 0;
function batch() {
  return Array.from({ length: 100 }, () => {
    let thought = 'Retry the parser cache with a budget for the worker queue and review the batch latency.';
    const tags = ['perf'];
    if (VARIED) {
      thought = '';
      while (thought.length < 95) thought += (thought ? ' ' : '') + WORDS[Math.floor(rand() * WORDS.length)];
      tags[0] = TAGS[Math.floor(rand() * TAGS.length)];
    }
    return { id: `add-${nextId++}`, project: PROJECT, projectContext: PROJECT, thought, role: 'actor', tags, artifacts: [], parents: [], createdAt: new Date().toISOString() };
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Per N of BENCH_CATCHUP_NODES: on each of `runs` (interleaved round by round), N nodes appended in batches of 100,
 * then the search's catch-up timed alone.
 */
async function measureCatchUps(runs) {
  if (!runs.length) return [];
  const { catchUpPostings } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'infrastructure', 'postgres', 'pg-search-catch-up.js'));
  const sizes = (process.env.BENCH_CATCHUP_NODES || '100,10000').split(',').map(Number).filter((n) => n > 0);
  const rounds = (process.env.BENCH_CATCHUP_ROUNDS || '20,3').split(',').map(Number);
  for (const run of runs) await catchUpPostings(run.db, PROJECT); // the batches' rows
  const out = [];
  for (const [i, n] of sizes.entries()) {
    const cs = runs.map((run) => ({ run, n, ms: [] }));
    for (let k = 0; k < (rounds[i] ?? rounds[rounds.length - 1] ?? 3); k++) {
      for (const c of cs) {
        for (let done = 0; done < n; done += 100) {
          const nodes = batch().slice(0, Math.min(100, n - done));
          await c.run.store.withLock(PROJECT, (g) => g.append(nodes));
        }
        const t = performance.now();
        await catchUpPostings(c.run.db, PROJECT);
        c.ms.push(performance.now() - t);
      }
    }
    for (const c of cs) out.push({ ...c, median: median(c.ms) });
  }
  return out;
}

async function main() {
  const pg = await startPostgres();
  const dataDir = tempDir('wg-bench-pgw-');
  const names = [];
  const runs = [];
  try {
    const file = path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.ndjson');
    await generateKnowledgeGraph(file, SEED, { project: PROJECT });
    const seedDb = `${PREFIX}seed`;
    names.push(seedDb);
    await admin(pg.url, [`CREATE DATABASE ${seedDb}`]);
    const files = container({ dataDir });
    const seeded = container({ dataDir: path.join(dataDir, 'unused'), database: { url: dbUrl(pg.url, seedDb), poolSize: 2 } });
    const { copyKnowledgeProject } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
    await copyKnowledgeProject(files.c.resolve(files.KnowledgeTokens.KnowledgeStore), seeded.c.resolve(seeded.KnowledgeTokens.KnowledgeStore), PROJECT, { replace: true });
    await seeded.c.resolve(Symbol.for('workgraph.Database')).close();
    const chosen = process.env.BENCH_ADD_VARIANTS ? process.env.BENCH_ADD_VARIANTS.split(';') : Object.keys(VARIANTS);
    for (const [k, name] of chosen.entries()) {
      const ddl = VARIANTS[name];
      if (!ddl) throw new Error(`no variant '${name}'`);
      const db = `${PREFIX}${k}`;
      names.push(db);
      await admin(pg.url, [`CREATE DATABASE ${db} TEMPLATE ${seedDb}`]);
      await admin(dbUrl(pg.url, db), [...ddl.flatMap((s) => (typeof s === 'function' ? s(db) : [s])), 'VACUUM ANALYZE']);
      const c = container({ dataDir: path.join(dataDir, 'unused'), database: { url: dbUrl(pg.url, db), poolSize: 2 } });
      runs.push({ name, store: c.c.resolve(c.KnowledgeTokens.KnowledgeStore), db: c.c.resolve(Symbol.for('workgraph.Database')), ms: [] });
    }
    // WAL bytes per batch: exact only on a server nothing else writes to (the bench's own, without
    // WORKGRAPH_BENCH_DATABASE_URL), as the server's WAL position is shared by its databases.
    const { Client } = require('pg');
    const wal = new Client({ connectionString: pg.url });
    await wal.connect();
    const lsn = async () => (await wal.query('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l;
    const bytes = async (a, b) => Number((await wal.query('SELECT pg_wal_lsn_diff($2, $1)::text AS d', [a, b])).rows[0].d);
    for (const r of runs) r.wal = 0;
    const load = [os.loadavg()[0]];
    for (let i = 0; i < BATCHES + 2; i++) {
      for (let k = 0; k < runs.length; k++) {
        const r = runs[(i + k) % runs.length];
        const nodes = batch();
        const before = await lsn();
        const t = performance.now();
        await r.store.withLock(PROJECT, (g) => g.append(nodes));
        if (i >= 2) r.ms.push(performance.now() - t);
        if (i >= 2) r.wal += await bytes(before, await lsn());
      }
    }
    load.push(os.loadavg()[0]);
    await wal.end();
    const catchUps = await measureCatchUps(runs.filter((x) => x.name === 'full' || x.name === 'vector by the insert'));
    load.push(os.loadavg()[0]);
    for (const r of runs) {
      const [h] = await r.db.query(`SELECT coalesce(sum(n_tup_hot_upd), 0)::text AS hot, coalesce(sum(n_tup_upd), 0)::text AS upd FROM pg_stat_user_tables
        WHERE relname IN ('wg_knowledge_term_bits', 'wg_knowledge_level_bits')`);
      r.hot = `${h.hot} of ${h.upd}`;
    }
    const full = runs.find((r) => r.name === 'full') ?? runs[0];
    const sum = (r) => r.ms.reduce((a, b) => a + b, 0);
    console.log(`# ${BATCHES} batches of 100 onto ${SEED} nodes, text ${VARIED ? 'varied' : 'one sentence'}, load ${load.map((x) => x.toFixed(2)).join(' → ')}`);
    console.log('| variant | median ms/batch | mean ms/batch | nodes/s | full ÷ this (throughput) | WAL KB/batch | bitmap updates in place (HOT) |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of runs) {
      const mean = sum(r) / r.ms.length;
      console.log(`| ${r.name} | ${median(r.ms).toFixed(2)} | ${mean.toFixed(2)} | ${Math.round((r.ms.length * 100) / (sum(r) / 1000))} | ${(sum(r) / sum(full)).toFixed(3)} | ${(r.wal / r.ms.length / 1024).toFixed(1)} | ${r.hot} |`);
    }
    if (catchUps.length) {
      // The add's share of a catch-up: full's add per node plus the catch-up per node, beside the old schema's add.
      const perNode = (r) => median(r.ms) / 100;
      const writes = runs.find((r) => r.name === 'posted by writes');
      console.log('');
      console.log(`| variant | catch-up after N adds | rounds | median ms | ms/node | add + catch-up, ms/node |${writes ? " 'posted by writes' add, ms/node | ratio |" : ''}`);
      console.log(`|---|---|---|---|---|---|${writes ? '---|---|' : ''}`);
      for (const c of catchUps) {
        const total = perNode(c.run) + c.median / c.n;
        const old = writes ? ` ${perNode(writes).toFixed(4)} | ${(perNode(writes) / total).toFixed(2)}× |` : '';
        console.log(`| ${c.run.name} | ${c.n} | ${c.ms.length} | ${c.median.toFixed(2)} | ${(c.median / c.n).toFixed(4)} | ${total.toFixed(4)} |${old}`);
      }
    }
  } finally {
    for (const r of runs) await r.db.close();
    if (names.length) await admin(pg.url, names.map((n) => `DROP DATABASE IF EXISTS ${n}`));
    await pg.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
