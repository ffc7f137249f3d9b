import type { KnowledgePage, KnowledgePageQuery, KnowledgeReader, KnowledgeSearchPage, KnowledgeSearchQuery, KnowledgeStats } from '../application/ports/knowledge-store';
import { SearchIndexFiles } from './search-index/search-index';
import { searchNdjson, type RepairIndex } from './search-index/ndjson-search';
import { DescendantCollector } from '../domain/descendant-collector';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../domain/knowledge-node';
import type { KnowledgePaths } from './knowledge-files';
import { forEachLine, forEachLineBackward } from './line-reader';
import {
  MalformedCollector,
  fileExists,
  leadingId,
  mentionsAny,
  parseNode,
  parseRecord,
  readIo,
  wantedLeadingId,
  type PassReport,
  type ScanOptions,
} from './ndjson-passes';
import { decodeCursor, encodeCursor, staleCursorError } from './page-cursor';

/**
 * The queries of one project's NDJSON files, answered by streaming passes that keep only what the caller needs:
 * forward passes (prefiltered on the ids that matter) and newest-first reads from the end of the file, whose cost is
 * the lines read, not the file size. Takes no lock: each pass sees one consistent file (a rebuild renames a new one
 * into place).
 */
export class NdjsonGraphReader implements KnowledgeReader {
  /**
   * `index`: the project's search index; `repair` brings it up to date under the project lock (the store's). Without
   * them (a copy's one-off reader) search indexes nothing and refuses.
   */
  constructor(
    protected readonly paths: KnowledgePaths,
    protected readonly index?: SearchIndexFiles,
    private readonly repairIndex?: RepairIndex,
  ) {}

  async search(query: KnowledgeSearchQuery): Promise<KnowledgeSearchPage> {
    if (!this.index || !this.repairIndex) throw new Error('this reader has no search index');
    return searchNdjson(this.paths, this.index, query, this.repairIndex);
  }

  async page(query: KnowledgePageQuery): Promise<KnowledgePage> {
    const tags = query.tags ?? [];
    const text = query.text?.toLowerCase();
    const accept = (node: StoredKnowledgeNode) =>
      (query.role === undefined || node.role === query.role) &&
      tags.every((t) => node.tags.includes(t)) &&
      (text === undefined || node.thought.toLowerCase().includes(text));
    const from = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
    const nodes: StoredKnowledgeNode[] = [];
    let malformedCount = 0;
    const { source, stoppedAt } = await readIo(this.paths.graph, () => forEachLineBackward(
      this.paths.graph,
      (line) => {
        const node = parseNode(line);
        if (!node) malformedCount++;
        else if (accept(node)) nodes.push(node);
        return nodes.length < query.limit;
      },
      {
        from: from?.offset,
        signal: query.signal,
        check: async (src, readByte) => {
          if (!from) return;
          // Same file (not replaced by a rebuild), offset inside it and at a line start.
          if (src.ino !== from.ino || from.offset > src.size) throw staleCursorError();
          if (from.offset > 0 && (await readByte(from.offset - 1)) !== 10) throw staleCursorError();
        },
      },
    ));
    const more = stoppedAt !== null && stoppedAt > 0;
    return { nodes, nextCursor: more ? encodeCursor(source.ino, stoppedAt) : null, malformedCount };
  }

  async get(id: string, signal?: AbortSignal): Promise<{ node: StoredKnowledgeNode; children: string[] } | undefined> {
    let found: StoredKnowledgeNode | undefined;
    const children: string[] = [];
    await this.scan(
      (node) => {
        if (node.id === id) found = node;
        else if (node.parents.includes(id)) children.push(node.id);
      },
      { mentioning: new Set([id]), signal },
    );
    return found && { node: found, children };
  }

  async findByIds(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, StoredKnowledgeNode>> {
    const found = new Map<string, StoredKnowledgeNode>();
    if (ids.size === 0) return found;
    await readIo(this.paths.graph, () => forEachLineBackward(
      this.paths.graph,
      (text) => {
        const id = leadingId(text);
        if (id !== undefined ? ids.has(id) : mentionsAny(text, ids)) {
          const node = parseNode(text);
          if (node && ids.has(node.id) && !found.has(node.id)) found.set(node.id, node);
        }
        return found.size < ids.size;
      },
      // Lines as the store writes them start with their id: one whose id is not wanted is skipped undecoded (checking
      // new ids for uniqueness reads the whole file; a string per line made the server's RSS grow with the graph).
      { signal, prefilter: (raw) => wantedLeadingId(raw, ids) },
    ));
    return found;
  }

  /**
   * Forward passes prefiltered on the ids found so far: adds append a child after its parents, so one pass finds
   * everything and a second confirms it (the collector converges for any line order).
   */
  async findDependents(ids: readonly string[], signal?: AbortSignal) {
    const collector = new DescendantCollector(ids);
    const found = new Map<string, StoredKnowledgeNode>();
    const dependents = new Map<string, StoredKnowledgeNode>();
    do {
      await this.scan(
        (node) => {
          if (collector.isRoot(node.id)) {
            if (!found.has(node.id)) found.set(node.id, node);
          } else if (collector.visit(node.id, node.parents)) dependents.set(node.id, node);
        },
        { mentioning: collector.watched, signal },
      );
    } while (collector.endPass());
    return { found, dependents };
  }

  async findSummariesMentioning(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<StoredKnowledgeNode[]> {
    const out: StoredKnowledgeNode[] = [];
    if (ids.size === 0) return out;
    const names = (list: readonly string[] | undefined) => (list ?? []).some((id) => ids.has(id));
    await this.scan(
      (node) => {
        if (node.role !== 'summary') return;
        if (names(node.summarizedSegment) || (node.summaryHistory ?? []).some((v) => names(v.summarizedSegment) || names(v.deletedNodeIds))) out.push(node);
      },
      { mentioning: ids, signal },
    );
    return out;
  }

  async deleted(query: { nodeIds?: ReadonlySet<string>; limit?: number; signal?: AbortSignal } = {}): Promise<{ records: DeletedNodeRecord[]; total: number }> {
    const limit = query.limit ?? Infinity;
    const kept: DeletedNodeRecord[] = [];
    let total = 0;
    await this.scanDeleted((r) => {
      if (query.nodeIds && !query.nodeIds.has(r.nodeId)) return;
      total++;
      kept.push(r);
      // Keep a bounded window of the newest records (the file is in deletion order).
      if (kept.length > limit * 2) kept.splice(0, kept.length - limit);
    }, query.signal);
    return { records: kept.slice(-limit).reverse(), total };
  }

  async stats(signal?: AbortSignal): Promise<KnowledgeStats | undefined> {
    if (!(await fileExists(this.paths.graph)) && !(await fileExists(this.paths.deleted))) return undefined;
    let nodes = 0;
    let deleted = 0;
    const roles = { actor: 0, critic: 0, summary: 0 };
    const report = await this.scan(
      (node) => {
        nodes++;
        roles[node.role]++;
      },
      { signal },
    );
    await this.scanDeleted(() => void deleted++, signal);
    return { nodes, deleted, malformedCount: report.malformedCount, roles };
  }

  /** One forward pass over the graph file (oldest first). A missing file is an empty graph. */
  async scan(visit: (node: StoredKnowledgeNode) => void, opts: ScanOptions = {}): Promise<PassReport> {
    const malformed = new MalformedCollector();
    const { lines } = await readIo(this.paths.graph, () => forEachLine(
      this.paths.graph,
      (text, offset, lineNo) => {
        if (text === '' || !mentionsAny(text, opts.mentioning)) return;
        const node = parseNode(text);
        if (node) visit(node);
        else malformed.add(lineNo, offset, text);
      },
      { signal: opts.signal },
    ));
    return malformed.report(lines);
  }

  /** One forward pass over the deleted file (oldest deletion first). */
  async scanDeleted(visit: (record: DeletedNodeRecord) => void, signal?: AbortSignal): Promise<PassReport> {
    const malformed = new MalformedCollector();
    const { lines } = await readIo(this.paths.deleted, () => forEachLine(
      this.paths.deleted,
      (text, offset, lineNo) => {
        if (text === '') return;
        const record = parseRecord(text);
        if (record) visit(record);
        else malformed.add(lineNo, offset, text);
      },
      { signal },
    ));
    return malformed.report(lines);
  }
}
