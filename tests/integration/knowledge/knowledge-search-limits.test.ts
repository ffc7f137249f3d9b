import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidArgumentsError } from '../../../src/kernel/errors';
import { silentLogger } from '../../../src/kernel/logger';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { RandomIdGenerator } from '../../../src/kernel/random-id-generator';
import type { KnowledgeStore } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import { AddNodes } from '../../../src/modules/knowledge/application/use-cases/add-nodes';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { SEARCH_LIMITS } from '../../../src/modules/knowledge/domain';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * Hard inputs through add_nodes and search_nodes on both stores (issue 23): what PostgreSQL's tsvector cannot index
 * as the files index does (past 255 positions of a word, past position 16,383, a word of 2,047 bytes, a vector over
 * 1 MB) is refused alike on both, naming `thought` and the limit, before anything is written; what is accepted is
 * found alike — the same hits for the same queries on both stores.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'limits';
/** U+FDF2 folds to four Arabic letters (8 bytes): words of many bytes in few characters. */
const ALLAH = '\ufdf2';
/** `count` distinct words of 1,923 bytes each (1,928 in a tsvector: 1,923 + 1 padding + 2 count + 2 position). */
const heavyWords = (count: number) => Array.from({ length: count }, (_, i) => ALLAH.repeat(240) + String(i).padStart(3, '0')).join(' ');
const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');

/** A thought past each limit, beside the limit it passes. */
const refused: Array<[string, string, string]> = [
  ['a 50 MB thought', 'lorem ipsum '.repeat(4_400_000) + 'needle at the end', 'at most 200,000 characters (got 52,800,017)'],
  ['20,000 words, a phrase past position 16,383', words(17_000) + ' needle at the end ' + words(3_000), 'at most 16,000 words can be searched in one node'],
  ['a word 300 times, a phrase after its 255th', 'cat '.repeat(300) + 'cat nap', "a word can be searched at most 250 times in one node ('cat' appears 301 times)"],
  ['a 3 KB word', `alpha ${'x'.repeat(3000)} bravo`, 'a word can be at most 2,000 bytes long to be searched (one has 3,000)'],
  ['a thought just over the tsvector limit', heavyWords(545), 'its words can take at most 1,000,000 bytes in the search index (they take 1,050,760)'],
];

function suite(name: string, make: () => Promise<{ store: KnowledgeStore; cleanup: () => Promise<void> }>) {
  describe(`knowledge search limits (${name})`, () => {
    let store: KnowledgeStore;
    let cleanup: () => Promise<void>;
    let add: AddNodes;
    let search: SearchNodes;
    const ids = async (query: string) => (await search.execute({ projectContext: P, query, limit: 100 })).hits.map((h) => h.id).sort();
    beforeEach(async () => {
      ({ store, cleanup } = await make());
      add = new AddNodes(store, new RandomIdGenerator(), { now: () => Date.parse('2026-12-04T05:00:00Z') }, silentLogger);
      search = new SearchNodes(store);
    });
    afterEach(async () => cleanup());

    it.each(refused)('refuses %s naming thought and the limit, writing nothing', async (_, thought, message) => {
      await add.execute({ projectContext: P, nodes: [{ id: 'ok', thought: 'needle lorem cat alpha', role: 'actor' }] });
      const err = await add.execute({ projectContext: P, nodes: [{ id: 'fine', thought: 'needle too', role: 'actor' }, { id: 'big', thought, role: 'actor' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidArgumentsError);
      expect((err as InvalidArgumentsError).message).toContain(`nodes/1/thought: ${message}`);
      expect((err as InvalidArgumentsError).message).not.toContain('\n');
      expect((err as InvalidArgumentsError).details).toMatchObject({ field: 'nodes/1/thought' });
      // Nothing of the call was written, not even the node before it.
      const nodes = await store.reader(P).findByIds(new Set(['ok', 'fine', 'big']));
      expect([...nodes.keys()]).toEqual(['ok']);
      expect(await ids('needle')).toEqual(['ok']);
    }, 120_000);

    it('a refused thought in a new project does not create the project', async () => {
      await expect(add.execute({ projectContext: 'fresh', nodes: [{ thought: 'cat '.repeat(300), role: 'actor' }] })).rejects.toThrow(InvalidArgumentsError);
      expect((await store.listProjects()).map((p) => p.project)).not.toContain('fresh');
    });

    it('what is accepted at each limit is found alike: near the start, at the end, a phrase after the last repeats', async () => {
      await add.execute({
        projectContext: P,
        nodes: [
          // 16,000 words: a phrase at its very end (positions 15,996-15,999).
          { id: 'long', thought: 'opening remark ' + words(15_994) + ' needle at the end', role: 'actor' },
          // 250 occurrences of cat, the phrase after the 249th.
          { id: 'rep', thought: 'cat '.repeat(249) + 'cat nap', role: 'actor' },
          // A 2,000-byte word keeps its place: alpha and bravo are not neighbours.
          { id: 'word', thought: `alpha ${'x'.repeat(2000)} bravo`, role: 'actor' },
          { id: 'near', thought: 'alpha bravo, needle at the end, cat nap, opening remark', role: 'actor' },
        ],
      });
      // Just under the index-size limit (518 × 1,928 = 998,704 bytes): PostgreSQL indexes it.
      await add.execute({ projectContext: P, nodes: [{ id: 'heavy', thought: heavyWords(518), role: 'actor' }] });
      expect(await ids('opening')).toEqual(['long', 'near']);
      expect(await ids('"opening remark"')).toEqual(['long', 'near']);
      expect(await ids('needle')).toEqual(['long', 'near']);
      expect(await ids('"needle at the end"')).toEqual(['long', 'near']);
      expect(await ids('w15993')).toEqual(['long']);
      expect(await ids('"w15993 needle"')).toEqual(['long']);
      expect(await ids('"cat nap"')).toEqual(['near', 'rep']);
      expect(await ids('"alpha bravo"')).toEqual(['near']);
      expect(await ids('alpha bravo')).toEqual(['near', 'word']);
      expect(await ids(ALLAH.repeat(240) + '517')).toEqual(['heavy']);
      expect(await ids(ALLAH.repeat(240) + '518')).toEqual([]);
    }, 120_000);
  });
}

suite('ndjson files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-limits-'));
  return { store: createNdjsonKnowledgeStore(dir), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

suite('postgresql', async () => {
  const d = new PgDatabase(await pg.createTestDatabase(), { poolSize: 2 });
  await migrate(d, knowledgeMigrations);
  return { store: new PgKnowledgeStore(d, {}), cleanup: () => d.close() };
});

/** Why the limits are where they are: what PostgreSQL itself does with a node past them, written past the use case. */
describe("PostgreSQL's own tsvector limits, which the search limits stay under", () => {
  let d: PgDatabase;
  let store: PgKnowledgeStore;
  beforeEach(async () => {
    d = new PgDatabase(await pg.createTestDatabase(), { poolSize: 2 });
    await migrate(d, knowledgeMigrations);
    store = new PgKnowledgeStore(d, {});
  });
  afterEach(async () => d.close());
  const node = (id: string, thought: string): StoredKnowledgeNode => ({
    id, project: P, projectContext: P, thought, role: 'actor', tags: [], artifacts: [], parents: [], createdAt: '2026-12-04T05:00:00.000Z',
  });
  const ids = async (query: string) => (await new SearchNodes(store).execute({ projectContext: P, query })).hits.map((h) => h.id);

  it('a vector over 1,048,575 bytes is an error; a word keeps 255 positions; a word of 2,047 bytes loses its place', async () => {
    // Written past add_nodes (as db import writes), the error names the node and the size limit it passes (not a
    // node past only the repeat limit, which PostgreSQL indexes within its own).
    const err = await store.withLock(P, (g) => g.append([node('fine', 'ok'), node('many', 'cat '.repeat(300)), node('heavy', heavyWords(545))])).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'storage_error', details: { sqlState: '54000', nodes: ['heavy'] } });
    expect((err as Error).message).toContain(
      "knowledge node(s) 'heavy' (its words can take at most 1,000,000 bytes in the search index (they take 1,050,760)) past the search limits",
    );
    expect((err as Error).message).toContain('string is too long for tsvector (1050760 bytes, max 1048575 bytes)');
    await store.withLock(P, (g) => g.append([node('rep', 'cat '.repeat(300) + 'cat nap'), node('word', `alpha ${'x'.repeat(2047)} bravo`)]));
    expect(await ids('"cat nap"')).toEqual([]);
    expect(await ids('"alpha bravo"')).toEqual(['word']);
    expect(SEARCH_LIMITS.repeats).toBeLessThan(255);
    expect(SEARCH_LIMITS.wordBytes).toBeLessThan(2047);
  }, 120_000);

  it('a thought too long to index within the statement timeout is named the same way', async () => {
    const slow = new PgDatabase(await pg.createTestDatabase(), { poolSize: 1, statementTimeoutMs: 200 });
    try {
      await migrate(slow, knowledgeMigrations);
      const s = new PgKnowledgeStore(slow, {});
      const err = await s.withLock(P, (g) => g.append([node('huge', 'lorem ipsum '.repeat(2_000_000))])).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'storage_error', details: { sqlState: '57014', nodes: ['huge'] } });
      expect((err as Error).message).toContain("knowledge node(s) 'huge' (at most 200,000 characters (got 24,000,000)) past the search limits");
    } finally {
      await slow.close();
    }
  }, 120_000);
});
