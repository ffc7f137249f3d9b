import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SEGMENT_MAX_DOCS, mergeStart, type SegmentRef } from '../../../../src/modules/knowledge/infrastructure/search-index/search-index';
import { SegmentBuilder } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { DamagedIndexError, LoadedSegment } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-reader';
import { BIGRAM_PREFIX, TAG_TERM_PREFIX } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-format';
import { writeSegmentFile } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-files';
import { planFlush, writeFlush, type FlushPart } from '../../../../src/modules/knowledge/infrastructure/search-index/tail-flush';
import type { TailPart } from '../../../../src/modules/knowledge/infrastructure/search-index/index-tail';
import type { StoredKnowledgeNode } from '../../../../src/modules/knowledge/domain';

/**
 * A flush plans its segments before writing any (tail-flush.ts): the same segments the earlier flush left by writing
 * each run of the tail and then merging the files one by one, each encoded once; the tail's open builder goes into a
 * merge as its accumulated postings (SegmentBuilder.appendBuilder), byte for byte what adding its nodes there builds.
 */
const WORDS = 'retry backoff cache budget parser queue latency worker alpha beta gamma delta'.split(' ');

function nodes(count: number, seed: number): StoredKnowledgeNode[] {
  let a = seed;
  const r = () => (a = (a * 1103515245 + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, (_, i) => ({
    id: `n${seed}-${i}`,
    project: 'p',
    projectContext: 'p',
    thought: Array.from({ length: 1 + Math.floor(r() * 12) }, () => WORDS[Math.floor(r() * WORDS.length)]!).join(' ') + ` note${Math.floor(r() * 500)}`,
    role: i % 3 ? 'actor' : 'critic',
    tags: r() < 0.3 ? [WORDS[Math.floor(r() * WORDS.length)]!] : [],
    artifacts: r() < 0.2 ? [{ name: 'plan.md', path: `docs/${WORDS[i % WORDS.length]}.md` }] : [],
    parents: [],
    createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  }));
}

/** A builder of `list`, the i-th node's line at start + 100 i (99 bytes and its newline). */
function build(list: readonly StoredKnowledgeNode[], start: number): SegmentBuilder {
  const b = new SegmentBuilder(start, start);
  list.forEach((n, i) => b.add(n, start + i * 100, 99));
  b.end = start + list.length * 100;
  return b;
}

/** The flush as it was: each run of the tail written as a segment, then the newest merged while mergeStart says so. */
function oneByOne(segments: number[], tail: number[]): number[] {
  const out = segments.slice();
  let run = -1;
  for (const n of tail) {
    if (run >= 0 && out[run]! + n <= SEGMENT_MAX_DOCS) out[run]! += n;
    else run = out.push(n) - 1;
  }
  for (let from = mergeStart(out); from >= 0; from = mergeStart(out)) out.splice(from, out.length - from, out.slice(from).reduce((a, b) => a + b, 0));
  return out;
}

describe('search index tail flush', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-tail-flush-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appending a builder gives byte for byte the segment that adding its nodes there, or appending its encoding, gives', async () => {
    const first = nodes(700, 1);
    const second = nodes(900, 2);
    const whole = build([...first, ...second], 0).encode();
    const viaBuilder = build(first, 0);
    viaBuilder.appendBuilder(build(second, 70_000));
    expect(viaBuilder.encode().equals(whole)).toBe(true);
    const viaSegment = build(first, 0);
    await viaSegment.appendSegment(LoadedSegment.fromBuffer(build(second, 70_000).encode(), 'second'));
    expect(viaSegment.encode().equals(whole)).toBe(true);
    // An empty builder covering trailing bytes only stretches the end.
    const stretched = build(first, 0);
    stretched.appendBuilder(new SegmentBuilder(70_000, 70_500));
    expect(stretched.end).toBe(70_500);
    expect(stretched.size).toBe(700);
    expect(() => build(first, 0).appendBuilder(build(second, 1))).toThrow(/starts at byte 1, the merge is at 70000/);
  });

  it('a merge refuses a segment whose postings do not add up (dense and sparse), naming the file', async () => {
    const list = nodes(800, 9);
    const good = build(list, 0).encode();
    const seg = LoadedSegment.fromBuffer(good, 'good');
    // Words (not tags' exact terms, not bigrams: those have no positions, and a merge derives bigrams again).
    const word = (term: string) => !term.startsWith(BIGRAM_PREFIX) && !term.startsWith(TAG_TERM_PREFIX);
    const dense = seg.header.terms.findIndex((term, t) => word(term) && seg.isDense(t));
    const sparse = seg.header.terms.findIndex((term, t) => word(term) && !seg.isDense(t));
    expect([dense >= 0, sparse >= 0]).toEqual([true, true]);
    const postingsAt = good.length - seg.postingsRange(seg.header.terms.length - 1)[1];
    for (const t of [dense, sparse]) {
      const bad = Buffer.from(good);
      // The term's last byte made a continuation byte: its last position runs past its postings.
      bad[postingsAt + seg.postingsRange(t)[1] - 1] = 0x80;
      const err = await new SegmentBuilder(0, 0).appendSegment(LoadedSegment.fromBuffer(bad, 'bad.bin')).catch((e) => e);
      expect([t, err instanceof DamagedIndexError, err.message]).toEqual([t, true, expect.stringMatching(/^bad\.bin: (term \d+'s positions|block \d+ does not end)/)]);
    }
  });

  it('plans the segments the one-by-one flush left, for segments and tails of every shape', () => {
    let a = 7;
    const r = () => (a = (a * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const ref = (docs: number): SegmentRef => ({ file: 'x', start: 0, end: 0, docs });
    const part = (docs: number): TailPart => ({ kind: 'piece', piece: { start: 0, end: 0, docs, bytes: Buffer.alloc(0), seg: undefined as never } });
    for (let i = 0; i < 2_000; i++) {
      const segments = Array.from({ length: Math.floor(r() * 8) }, () => 1 + Math.floor(r() * SEGMENT_MAX_DOCS));
      const tail = Array.from({ length: 1 + Math.floor(r() * 5) }, () => Math.floor(r() * r() * SEGMENT_MAX_DOCS));
      const plan = planFlush(segments.map(ref), tail.map(part));
      const docs = (g: FlushPart[]) => g.reduce((n, p) => n + (p.kind === 'segment' ? p.ref.docs : p.kind === 'piece' ? p.piece.docs : p.builder.size), 0);
      expect([segments, tail, plan.map(docs)]).toEqual([segments, tail, oneByOne(segments, tail)]);
    }
  });

  it('writes each planned segment once: a merge of a segment on disk, a piece in memory and the open builder is the segment of all their nodes', async () => {
    const onDisk = nodes(1_000, 3);
    const piece = nodes(600, 4);
    const open = nodes(2_500, 5);
    const written = await writeSegmentFile(dir, build(onDisk, 0), 1);
    const pieceBuilder = build(piece, 100_000);
    const pieceBytes = pieceBuilder.encode();
    const parts: TailPart[] = [
      { kind: 'piece', piece: { start: 100_000, end: 160_000, docs: 600, bytes: pieceBytes, seg: LoadedSegment.fromBuffer(pieceBytes, 'piece') } },
      { kind: 'open', builder: build(open, 160_000) },
    ];
    const plan = planFlush([written], parts);
    expect(plan.map((g) => g.length)).toEqual([3]);
    let writes = 0;
    const refs = await writeFlush(dir, plan, 2, () => writes++);
    expect(writes).toBe(1);
    expect(refs).toEqual([{ file: 'seg-2-0-410000.bin', start: 0, end: 410_000, docs: 4_100 }]);
    expect(fs.readFileSync(path.join(dir, refs[0]!.file)).equals(build([...onDisk, ...piece, ...open], 0).encode())).toBe(true);
    // A segment the plan leaves alone is not written again; the tail beside it is, once.
    const alone = planFlush([{ ...written, docs: 60_000 }], [{ kind: 'open', builder: build(nodes(10, 6), 100_000) }]);
    expect(alone.map((g) => g.map((p) => p.kind))).toEqual([['segment'], ['open']]);
  });
});
