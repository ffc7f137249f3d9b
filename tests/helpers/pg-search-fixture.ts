import { PgDatabase } from '../../src/kernel/postgres/pg-database';
import { migrate } from '../../src/kernel/postgres/migrations';
import { PgKnowledgeStore } from '../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { knowledgeMigrations } from '../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import type { KnowledgeRole, StoredKnowledgeNode } from '../../src/modules/knowledge/domain';
import type { TestPostgres } from './postgres';
import { prng } from './prng';

/** The PostgreSQL search suites' shared setup: seeded nodes of a small vocabulary, a migrated store, deletions. */

const ROLES: KnowledgeRole[] = ['actor', 'critic', 'summary'];

export interface NodeText {
  project: string;
  /** The vocabulary, early words more often (a skewed pick: many ties, many distinct impacts). */
  words: readonly string[];
  /** A thought has `minWords` to `minWords + spanWords - 1` words. */
  minWords: number;
  spanWords: number;
  /** Tags drawn from (with this chance a node has one). */
  tags: readonly string[];
  tagRate: number;
  /** The chance a node has an artifact named and pathed after a word. */
  artifactRate: number;
}

/** `count` nodes n<from>… of seed `seed`, a minute apart from 2026-11-01. */
export function generateNodes(text: NodeText, count: number, seed: number, from = 0): StoredKnowledgeNode[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const { words: vocabulary, project } = text;
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const words = Array.from({ length: text.minWords + Math.floor(rand() * text.spanWords) }, () => vocabulary[Math.floor(rand() * rand() * vocabulary.length)]!);
    return {
      id: `n${i}`,
      project,
      projectContext: project,
      thought: words.join(' '),
      role: pick(ROLES),
      tags: rand() < text.tagRate ? [pick(text.tags)] : [],
      artifacts: rand() < text.artifactRate ? [{ name: `${pick(vocabulary)}.md`, path: `docs/${pick(vocabulary)}.md` }] : [],
      parents: [],
      createdAt: new Date(Date.parse('2026-11-01T00:00:00Z') + i * 60_000).toISOString(),
    };
  });
}

/** A new database of the test server, migrated (all migrations unless told), and a store on it. */
export async function freshKnowledgeStore(pg: TestPostgres, opts: { searchTotalCap?: number; migrations?: typeof knowledgeMigrations } = {}) {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  await migrate(db, opts.migrations ?? knowledgeMigrations);
  return { db, store: new PgKnowledgeStore(db, { searchTotalCap: opts.searchTotalCap }) };
}

/** Soft-deletes these nodes of `project` (those that exist), with backups; returns them, in the reader's order. */
export async function deleteNodes(store: PgKnowledgeStore, project: string, ids: Iterable<string>): Promise<StoredKnowledgeNode[]> {
  const gone = [...(await store.reader(project).findByIds(new Set(ids))).values()];
  await store.withLock(project, (g) => g.deleteWithBackup(gone.map((n) => ({ nodeId: n.id, project, reason: null, timestamp: '2026-11-30T12:00:00.000Z', nodeData: n }))));
  return gone;
}
