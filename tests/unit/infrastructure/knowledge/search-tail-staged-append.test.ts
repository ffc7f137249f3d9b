import { IndexTail, type AppendedLines } from '../../../../src/modules/knowledge/infrastructure/search-index/index-tail';
import { SegmentBuilder } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import type { StoredKnowledgeNode } from '../../../../src/modules/knowledge/domain';

/**
 * An append's nodes are indexed while the graph's fsync runs (IndexTail.stage, into a builder of their own) and join
 * the tail once the append is done (addAppended): the tail is then exactly the one indexing them after the append
 * builds, and a search in between sees the tail as it was before the append.
 */
const WORDS = 'retry backoff cache budget parser queue latency worker'.split(' ');
let k = 0;
function node(): StoredKnowledgeNode {
  const i = k++;
  return {
    id: `s${i}`,
    project: 'p',
    projectContext: 'p',
    thought: `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]} ${WORDS[(i * 5 + 1) % 8]} note ${i}`,
    role: 'actor',
    tags: i % 4 ? [] : ['perf'],
    artifacts: [],
    parents: [],
    createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  };
}

/** The append of `nodes` at `before` (the graph ending with a newline): its lines and the lengths they make. */
function appendOf(before: number, nodes: StoredKnowledgeNode[]): AppendedLines {
  const lines = nodes.map((n) => JSON.stringify(n));
  const after = before + lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  return { before, after, ino: 7, mtimeMs: after, lines, nodes };
}

/** The tail's nodes as one segment's bytes (its pieces and open builder merged). */
async function bytesOf(tail: IndexTail): Promise<Buffer> {
  const parts = await tail.flushParts();
  const b = new SegmentBuilder(tail.start, tail.start);
  for (const p of parts) {
    if (p.kind === 'piece') await b.appendSegment(p.piece.seg);
    else b.appendBuilder(p.builder);
  }
  return b.encode();
}

describe('search index tail: an append indexed while its fsync runs', () => {
  beforeEach(() => (k = 0));

  it('staged then added is the tail adding the lines after the append, and a search in between sees the tail before it', async () => {
    const plain = new IndexTail('k', 100, { ino: 7, size: 100, mtimeMs: 0 });
    const staged = new IndexTail('k', 100, { ino: 7, size: 100, mtimeMs: 0 });
    let end = 100;
    for (let round = 0; round < 12; round++) {
      const nodes = Array.from({ length: 1 + (round % 5) }, node);
      const a = appendOf(end, nodes);
      expect(plain.addAppended(a)).toBe(true);
      const docsBefore = staged.docs;
      const s = staged.stage(a);
      expect(s).toBeDefined();
      // Every third round a search takes the tail's snapshot while the fsync runs: the staged nodes are not in it.
      if (round % 3 === 0) {
        const snap = await staged.snapshot();
        expect([snap.docs, snap.identity.size]).toEqual([docsBefore, end]);
      }
      expect(staged.addAppended({ ...a, staged: s })).toBe(true);
      expect(staged.docs).toBe(docsBefore + nodes.length);
      end = a.after;
    }
    expect(staged.identity).toEqual(plain.identity);
    expect((await bytesOf(staged)).equals(await bytesOf(plain))).toBe(true);
  });

  it('lines that are not the bytes written at the tail\'s end are not staged; a staging of another tail is not taken', () => {
    const tail = new IndexTail('k', 0, { ino: 7, size: 0, mtimeMs: 0 });
    const a = appendOf(0, [node(), node()]);
    expect(tail.stage({ ...a, before: 5 })).toBeUndefined();
    expect(tail.stage({ ...a, after: a.after + 3 })).toBeUndefined();
    const other = new IndexTail('k', 0, { ino: 7, size: 0, mtimeMs: 0 });
    const theirs = other.stage(a);
    expect(theirs).toBeDefined();
    // Not this tail's staging: the lines are indexed from the append itself, once.
    expect(tail.addAppended({ ...a, staged: theirs })).toBe(true);
    expect(tail.docs).toBe(2);
    expect(other.docs).toBe(0);
  });
});
