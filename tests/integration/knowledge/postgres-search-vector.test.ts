import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';

/**
 * Migration 8 replaces wg_knowledge_vector (the generated search column's expression) by a cheaper one and leaves the
 * stored column as it is: so the new function must give every node exactly the tsvector migration 3's gave. Both run
 * on the same nodes of a real PostgreSQL — plain ones (the fast path) and every shape that must leave it (artifacts,
 * escaped, null or non-string tags, non-ASCII text, decompositions, punctuation runs) — and must agree lexeme for
 * lexeme, position for position, weight for weight.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const base = { id: 'x', project: 'v', projectContext: 'v', role: 'actor', parents: [], createdAt: '2026-11-01T00:00:00.000Z' };

/** Hand-picked shapes: each of the fast path's conditions on both sides. */
const SHAPES: Array<Record<string, unknown>> = [
  { thought: 'Retry the parser cache, then review: the batch latency!', tags: ['perf'], artifacts: [] },
  { thought: 'a.b c-d e_f 1.5 x@y.com http://host/p?q=1 U.S.A. end.', tags: ['db', 'api', 'plan'], artifacts: [] },
  { thought: '   leading   and trailing   ', tags: [], artifacts: [] },
  { thought: 'no tags key' , artifacts: [] },
  { thought: 'no artifacts key', tags: ['x'] },
  { thought: 'tags null', tags: null, artifacts: [] },
  { thought: 'artifacts null', tags: ['t'], artifacts: null },
  { thought: 'tags not strings', tags: [1, 2e3, 1.5, true, null], artifacts: [] },
  { thought: 'tags nested', tags: [['inner', 'list'], { k: 'v' }], artifacts: [] },
  // jsonb orders an object's keys (shorter first) and writes numbers its own way: the JSON text's words differ.
  { thought: 'tags reordered by jsonb', tags: [{ zz: 'last', b: 'first' }, 1e21, 0.1e-6], artifacts: [] },
  { thought: 'tags a string', tags: 'lonely tag', artifacts: [] },
  { thought: 'escaped tags', tags: ['say "hi"', 'back\\slash', 'new\nline', 'tab\there', 'ctl\u0001x'], artifacts: [] },
  { thought: 'unicode tags', tags: ['Café', 'straße', 'ﬁle', 'e\u0301t\u00e9'], artifacts: [] },
  { thought: 'with artifacts', tags: ['a'], artifacts: [{ name: 'Design.md', path: 'docs/design.md' }] },
  { thought: 'artifact without a name', tags: ['a'], artifacts: [{ path: 'src/x.ts' }, { name: 'only-name' }] },
  { thought: 'Café naïve résumé ﬁnal Straße Ångström ①②', tags: ['ok'], artifacts: [] },
  { thought: 'combining e\u0301 a\u0308 n\u0303 ᾅ', tags: ['ok'], artifacts: [] },
  { thought: '日本語のテキスト и кириллица العربية 🙂 emoji', tags: ['多言語'], artifacts: [] },
  { thought: '', tags: ['empty thought'], artifacts: [] },
  { tags: ['no thought'], artifacts: [] },
  { thought: null, tags: ['null thought'], artifacts: [] },
  { thought: 12345, tags: ['number thought'], artifacts: [] },
  { thought: 'the and of a an', tags: ['the'], artifacts: [] },
  { thought: 'zero-width? no: zero\u200bwidth and nbsp\u00a0here', tags: ['\u00a0'], artifacts: [] },
];

/** Random texts over an alphabet of ASCII letters, digits, punctuation, accents, decomposables and spaces. */
function randomNodes(count: number, seed: number): Array<Record<string, unknown>> {
  const rand = prng(seed);
  const alphabet = [...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789      .,;:!?-_/@\'"()[]{}#%&*+=<>|~`^\\$', 'é', 'ß', 'ﬁ', '\u0301', 'Å', '①', 'ж', '語', '\n', '\t'];
  const text = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
  const asciiOnly = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * 70)]).join('');
  return Array.from({ length: count }, () => {
    const plain = rand() < 0.6;
    const tags = Array.from({ length: Math.floor(rand() * 4) }, () => (plain && rand() < 0.8 ? asciiOnly(1 + Math.floor(rand() * 8)).replace(/["\\]/g, '') : text(1 + Math.floor(rand() * 8))));
    const artifacts = plain || rand() < 0.5 ? [] : [{ name: text(6), path: text(12) }];
    return { thought: rand() < 0.5 ? asciiOnly(20 + Math.floor(rand() * 120)) : text(20 + Math.floor(rand() * 120)), tags, artifacts };
  });
}

async function vectors(db: PgDatabase, nodes: ReadonlyArray<Record<string, unknown>>): Promise<string[]> {
  const rows = await db.query<{ v: string }>(
    'SELECT wg_knowledge_vector(u.node::json)::text AS v FROM unnest($1::text[]) WITH ORDINALITY AS u(node, i) ORDER BY u.i',
    [nodes.map((n) => JSON.stringify({ ...base, ...n }))],
  );
  return rows.map((r) => r.v);
}

test('the vector of migration 8 equals migration 3\'s for every node shape, and plain nodes take the fast path', async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 2 });
  try {
    await migrate(db, knowledgeMigrations.filter((m) => m.version < 8));
    const nodes = [...SHAPES, ...randomNodes(400, 9), ...randomNodes(400, 10)];
    const before = await vectors(db, nodes);
    await migrate(db, knowledgeMigrations);
    const after = await vectors(db, nodes);
    const differ = nodes.map((n, i) => ({ n, before: before[i], after: after[i] })).filter((x) => x.before !== x.after);
    expect(differ).toEqual([]);
    // The hand-picked plain node really has words in every weight it can have (the comparison is not of empties).
    expect(after[0]).toContain("'perf':");
    expect(after[0]).toMatch(/'retri':1A/);
  } finally {
    await db.close();
  }
}, 120_000);
