import { isStoredKnowledgeNode, type StoredKnowledgeNode } from '../../domain/knowledge-node';
import { parseNode } from '../ndjson-passes';
import { mergeStart, SEGMENT_MAX_DOCS, type GraphIdentity } from './index-manifest';
import { SegmentBuilder } from './segment-builder';
import { LoadedSegment } from './segment-reader';
import type { FlushJob } from './flush-job';
import type { EncodedGroup } from './segment-files';

/** What an append wrote: the graph's size before and after it, its inode and mtime after it, and its lines (without their `\n`). */
export interface AppendedLines {
  before: number;
  after: number;
  ino: number;
  mtimeMs: number;
  lines: readonly string[];
  /** The nodes the lines are the JSON of (spares parsing them again), when the writer has them. */
  nodes?: readonly StoredKnowledgeNode[];
  /** The lines indexed while the append's fsync ran ({@link IndexTail.stage}), when they were. */
  staged?: StagedAppend;
  /** The graph identity the tail record was rewritten for while the fsync ran (SearchIndexFiles.recordWhileSyncing). */
  recorded?: GraphIdentity;
}

/** An append's lines indexed into a builder of their own while its fsync ran: the tail takes them once it is done. */
export interface StagedAppend {
  tail: IndexTail;
  builder: SegmentBuilder;
}

const NL = 10;
const CR = 13;

/**
 * The index of the graph's bytes past the manifest's segments, held in memory: [start, end) of the file whose
 * identity at `end` is `identity`. Built as the writer appends (from the lines it wrote) or, in a process that did not
 * write them, from the graph's bytes; persisted as segments only when the store flushes it (its FlushPolicy: a
 * segment's worth of nodes or 8 MiB, and on a clean shutdown). `key` names the index it extends (manifest `built`,
 * generation, covered end): a tail of another index is never used.
 *
 * Nodes go into an open builder; a search freezes it into an encoded segment held in memory (only the nodes added
 * since the last search are encoded), and frozen pieces are merged in memory as they accumulate (the manifest's
 * merge policy), so searches after every add stay cheap.
 */
export class IndexTail {
  private frozen: Piece[] = [];
  private open: SegmentBuilder;
  private frozenDocs = 0;
  // What a flush in the background is writing (search-index.ts): the tail's parts before `cutEnd`, no longer added
  // to; searches read them first (the open builder among them encoded for searches once, when one asks).
  private cutParts: TailPart[] = [];
  private cutPieces?: Piece[];
  private cutDocs = 0;
  private cutEnd: number;
  /** The flush in the background of the parts before {@link cut}, set by the index (search-index.ts). */
  pending?: PendingFlush;

  constructor(
    readonly key: string,
    readonly start: number,
    public identity: GraphIdentity,
  ) {
    this.open = new SegmentBuilder(start, start);
    this.cutEnd = start;
  }

  /** The graph bytes covered: [start, end). */
  get end(): number {
    return this.identity.size;
  }

  get docs(): number {
    return this.cutDocs + this.frozenDocs + this.open.size;
  }

  get bytes(): number {
    return this.end - this.start;
  }

  /** Nodes and graph bytes added since the {@link cut} (all of the tail when there was none). */
  get docsSinceCut(): number {
    return this.frozenDocs + this.open.size;
  }

  get bytesSinceCut(): number {
    return this.end - this.cutEnd;
  }

  /**
   * Everything the tail holds now becomes the parts a flush in the background writes (returned, in graph order); the
   * nodes added from here on go to a new open builder, so those parts never change. Searches still read them.
   */
  cut(): Promise<TailPart[]> {
    return this.exclusive(async () => {
      const parts = [...this.cutParts, ...partsOf(this.frozen, this.open, this.cutParts.length === 0)];
      this.cutParts = parts;
      this.cutPieces = undefined;
      this.cutDocs = this.docs;
      this.cutEnd = this.end;
      this.frozen = [];
      this.frozenDocs = 0;
      this.open = new SegmentBuilder(this.end, this.end);
      return parts;
    });
  }

  /**
   * Once the parts before the cut are segments a manifest names (covering the graph to the cut): the tail of that
   * index, `key`, holding what was added since the cut — this tail's builders, handed over (this one is not used again).
   */
  afterCut(key: string): IndexTail {
    const next = new IndexTail(key, this.cutEnd, this.identity);
    next.frozen = this.frozen;
    next.frozenDocs = this.frozenDocs;
    next.open = this.open;
    return next;
  }

  private add(text: string, offset: number, lineLength: number, parsed?: StoredKnowledgeNode): void {
    if (this.open.size >= SEGMENT_MAX_DOCS) this.freeze(offset);
    const node = parsed ?? (text === '' ? undefined : parseNode(text));
    if (node) this.open.add(node, offset, lineLength);
  }

  /**
   * Where each of an append's lines starts when they are exactly the bytes it wrote at `end` (a `\n` first when the
   * graph did not end with one, then each line and its `\n`); undefined otherwise.
   */
  private offsets(appended: Pick<AppendedLines, 'before' | 'after' | 'lines'>): { at: number[]; lengths: number[] } | undefined {
    if (appended.before !== this.end) return undefined;
    const lengths = appended.lines.map((l) => Buffer.byteLength(l, 'utf8'));
    const gap = appended.after - appended.before - lengths.reduce((n, l) => n + l + 1, 0);
    if (gap !== 0 && gap !== 1) return undefined;
    let offset = this.end + gap;
    const at = lengths.map((l) => ((offset += l + 1), offset - l - 1));
    return { at, lengths };
  }

  /**
   * While the append's fsync runs: its lines indexed into a builder of their own (the open builder stays as searches
   * see it until the append is done), for {@link addAppended} to take. Undefined when they cannot be (not the bytes
   * written at `end`, or the open builder would fill: then addAppended indexes them itself).
   */
  stage(appended: Pick<AppendedLines, 'before' | 'after' | 'lines' | 'nodes'>): StagedAppend | undefined {
    const o = this.offsets(appended);
    if (!o || this.open.size + appended.lines.length > SEGMENT_MAX_DOCS) return undefined;
    const builder = new SegmentBuilder(appended.before, appended.before);
    appended.lines.forEach((line, i) => {
      const node = asParsed(appended.nodes?.[i]) ?? (line === '' ? undefined : parseNode(line));
      if (node) builder.add(node, o.at[i]!, o.lengths[i]!);
    });
    builder.end = appended.after;
    return { tail: this, builder };
  }

  /**
   * The lines an append just wrote at `end`, from memory (the builder {@link stage} filled meanwhile, when it did: its
   * postings copied into the open builder). False (nothing added) when they are not exactly the bytes it wrote: then
   * read the graph.
   */
  addAppended(appended: AppendedLines): boolean {
    const o = this.offsets(appended);
    if (!o) return false;
    const staged = appended.staged;
    if (staged && staged.tail === this && staged.builder.start === this.end && staged.builder.end === appended.after && this.open.size + staged.builder.size <= SEGMENT_MAX_DOCS) {
      this.open.appendBuilder(staged.builder);
    } else {
      appended.lines.forEach((line, i) => this.add(line, o.at[i]!, o.lengths[i]!, asParsed(appended.nodes?.[i])));
    }
    this.advance({ ino: appended.ino, size: appended.after, mtimeMs: appended.mtimeMs });
    return true;
  }

  /**
   * The graph's bytes from `end` (`bytes`, read from the file whose identity is `now`), line by line as a rebuild
   * reads them: a last line without its `\n` (a torn write) is indexed when it is a node, as a rebuild would.
   */
  addBytes(bytes: Buffer, now: GraphIdentity): void {
    let at = 0;
    while (at < bytes.length) {
      let nl = bytes.indexOf(NL, at);
      const terminated = nl >= 0;
      if (!terminated) nl = bytes.length;
      const textEnd = terminated && nl > at && bytes[nl - 1] === CR ? nl - 1 : nl;
      this.add(bytes.toString('utf8', at, textEnd), this.end + at, nl - at);
      at = nl + 1;
    }
    this.advance(now);
  }

  private advance(now: GraphIdentity): void {
    this.identity = now;
    this.open.end = now.size;
  }

  /** The open builder becomes a frozen segment ending at `at`. */
  private freeze(at: number): void {
    this.open.end = at;
    this.frozen.push(encoded(this.open));
    this.frozenDocs += this.open.size;
    this.open = new SegmentBuilder(at, at);
  }

  /**
   * The tail as segments held in memory, in graph order (what a search reads after the manifest's segments), with the
   * graph identity they cover. One at a time (a merge in memory awaits; adds meanwhile go to the open builder).
   */
  snapshot(): Promise<{ segments: LoadedSegment[]; identity: GraphIdentity; docs: number }> {
    return this.exclusive(async () => {
      const identity = this.identity;
      const docs = this.docs;
      return { segments: (await this.pieces()).map((p) => p.seg), identity, docs };
    });
  }

  private busy: Promise<unknown> = Promise.resolve();

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.busy.then(fn, fn);
    this.busy = run.catch(() => undefined);
    return run;
  }

  /** Freezes the open builder (synchronously, so the pieces end at the identity read with them), then merges. */
  private async pieces(): Promise<Piece[]> {
    this.cutPieces ??= this.cutParts.flatMap((p) => (p.kind === 'piece' ? [p.piece] : p.builder.size > 0 ? [encoded(p.builder)] : []));
    const cut = this.cutPieces;
    if (this.open.size > 0) this.freeze(this.end);
    let pieces = this.frozen;
    const n = pieces.length;
    for (let from = mergeStart(pieces.map((p) => p.docs)); from >= 0; from = mergeStart(pieces.map((p) => p.docs))) {
      pieces = [...pieces.slice(0, from), await merged(pieces.slice(from))];
    }
    // An add that filled the open builder meanwhile froze a piece after these.
    this.frozen = [...pieces, ...this.frozen.slice(n)];
    return [...cut, ...pieces];
  }

  /**
   * What a flush writes of the tail, in graph order, covering [start, end): the pieces frozen for searches (encoded in
   * memory) and the open builder, its postings as accumulated (a flush merges it into a segment without encoding and
   * decoding it first); the open builder too when it holds no node but covers trailing lines, or the tail nothing else.
   */
  flushParts(): Promise<TailPart[]> {
    return this.exclusive(async () => [...this.cutParts, ...partsOf(this.frozen, this.open, this.cutParts.length === 0)]);
  }
}

/** Frozen pieces and the open builder as parts: the builder when it holds nodes, covers trailing lines, or `alone`. */
function partsOf(frozen: readonly Piece[], open: SegmentBuilder, alone: boolean): TailPart[] {
  const parts: TailPart[] = frozen.map((piece) => ({ kind: 'piece', piece }));
  if (open.size > 0 || open.end > open.start || (alone && parts.length === 0)) parts.push({ kind: 'open', builder: open });
  return parts;
}

/** A flush in the background: its job (the cut parts' segments, encoded) and the graph's identity at the cut. */
export interface PendingFlush {
  job: FlushJob<EncodedGroup[]>;
  cut: GraphIdentity;
}

/** A part of the tail a flush writes: a piece encoded in memory, or the open builder. */
export type TailPart = { kind: 'piece'; piece: Piece } | { kind: 'open'; builder: SegmentBuilder };

/**
 * The node itself when parsing its JSON line would give the same fields the index reads (a valid node whose arrays and
 * createdAt are what JSON keeps as they are); undefined: parse the line.
 */
function asParsed(node: StoredKnowledgeNode | undefined): StoredKnowledgeNode | undefined {
  if (!node || !isStoredKnowledgeNode(node) || typeof node.createdAt !== 'string' || !Array.isArray(node.tags) || !Array.isArray(node.artifacts)) return undefined;
  return node;
}

/** A segment of the tail, encoded and held in memory. */
export interface Piece {
  start: number;
  end: number;
  docs: number;
  bytes: Buffer;
  seg: LoadedSegment;
}

function encoded(b: SegmentBuilder): Piece {
  const bytes = b.encode();
  return { start: b.start, end: b.end, docs: b.size, bytes, seg: LoadedSegment.fromBuffer(bytes, `(tail ${b.start}-${b.end})`) };
}

async function merged(run: readonly Piece[]): Promise<Piece> {
  const b = new SegmentBuilder(run[0]!.start, run[0]!.start);
  for (const p of run) await b.appendSegment(p.seg);
  return encoded(b);
}
