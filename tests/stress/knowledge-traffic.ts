import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { extractiveSummary } from '../../src/modules/knowledge/domain';
import { prng } from '../helpers/prng';

/**
 * Knowledge traffic for the multi-server PostgreSQL stress test (tests/stress/postgres-multi-server.test.ts): every
 * server adds nodes (parents often nodes another server added), summaries, deletes its nodes with the dependents
 * confirmation path (a refusal lists the dependents; the call is repeated with them included), restores what it
 * deleted and pages through list_nodes — all through the real tools, into projects all servers share. Every call is
 * recorded in a model that does not depend on the order answers arrive in: a node's state is its acknowledged
 * deletes against its acknowledged restores (they can only alternate), its parents only shrink (a restore drops
 * parents that are gone). {@link KnowledgeTraffic.verify} then checks the database and the tools against the model.
 */
export type ServerCall = (server: number, name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export const answerText = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0]!.text;

interface ModelNode {
  project: string;
  id: string;
  role: 'actor' | 'summary';
  thought: string;
  tags: string[];
  parents: Set<string>;
  /** Summaries: the segment they were added with (a recalculation only ever keeps a part of it). */
  segment?: string[];
  /** pending until the add is answered; refused adds must leave nothing; unknown: the add failed for another reason. */
  added: 'pending' | 'acked' | 'refused' | 'unknown';
  deletes: number;
  restores: number;
  /** A write naming it failed without a refusal (e.g. during the outage): it may or may not have happened. */
  uncertain: boolean;
}

export interface KnowledgeCounts {
  added: number;
  addRefused: number;
  summaries: number;
  deletes: number;
  /** Deletes refused with dependents (`success: false`) and then confirmed with the dependents included. */
  dependentsRefused: number;
  deletesConfirmed: number;
  deleteRefused: number;
  recalculated: number;
  restores: number;
  droppedParents: number;
  listings: number;
  pages: number;
}

export class KnowledgeTraffic {
  readonly counts: KnowledgeCounts = {
    added: 0, addRefused: 0, summaries: 0, deletes: 0, dependentsRefused: 0, deletesConfirmed: 0, deleteRefused: 0,
    recalculated: 0, restores: 0, droppedParents: 0, listings: 0, pages: 0,
  };
  /** Broken invariants seen during the traffic (a page repeating an id, an answer contradicting itself). */
  readonly violations: string[] = [];
  private readonly nodes = new Map<string, ModelNode>();
  private readonly backups: Array<{ project: string; id: number; nodeIds: string[] }> = [];

  /**
   * @param projects project ids; each is used with the context `/srv/stress-knowledge/<id>` (the id is its last segment)
   * @param tag prefixes every node id, so two traffics can share a database
   */
  constructor(private readonly projects: string[], private readonly call: ServerCall, private readonly errors: string[], private readonly tag: string) {}

  private key = (project: string, id: string) => `${project}/${id}`;
  private context = (project: string) => `/srv/stress-knowledge/${project}`;
  private isLive = (n: ModelNode) => n.added === 'acked' && !n.uncertain && n.deletes === n.restores;

  /** One server's walk: each call of the returned function makes one knowledge operation (a few tool calls at most). */
  walker(server: number): () => Promise<void> {
    const random = prng(server * 7919 + 17);
    const deletedSets: Array<{ project: string; ids: string[] }> = [];
    let serial = 0;
    return async () => {
      const project = this.projects[Math.floor(random() * this.projects.length)]!;
      const own = [...this.nodes.values()].filter((n) => n.project === project && n.id.startsWith(`${this.tag}${server}x`) && n.role === 'actor' && this.isLive(n));
      const r = random();
      const mine = deletedSets.filter((d) => d.project === project);
      if (own.length < 4 || r < 0.35) return this.add(server, project, random, () => `${this.tag}${server}x${serial++}`);
      if (r < 0.43) return this.addSummary(server, project, random, `${this.tag}${server}x${serial++}`);
      if (r < 0.68) {
        // Half the time a node some summary covers, so deletes recalculate summaries (the in-place update of a node).
        const covered = new Set([...this.nodes.values()].filter((n) => n.project === project && n.role === 'summary' && this.isLive(n)).flatMap((n) => n.segment!));
        const inSummary = own.filter((n) => covered.has(n.id));
        const pool = inSummary.length && random() < 0.5 ? inSummary : own;
        return this.delete(server, project, pool[Math.floor(random() * pool.length)]!, random() < 0.6, deletedSets);
      }
      if (r < 0.85 && mine.length) return this.restore(server, mine[Math.floor(random() * mine.length)]!, deletedSets);
      return this.page(server, project, random);
    };
  }

  /** True once every kind of write has been acknowledged at least once (so the checks cannot pass vacuously). */
  coversEveryKind(): boolean {
    const c = this.counts;
    return c.added > 0 && c.summaries > 0 && c.deletes > 0 && c.deletesConfirmed > 0 && c.recalculated > 0 && c.restores > 0 && c.listings > 0;
  }

  /** Live, acknowledged actor nodes of a project, newest added last. */
  private liveActors(project: string): ModelNode[] {
    return [...this.nodes.values()].filter((n) => n.project === project && n.role === 'actor' && this.isLive(n));
  }

  private register(n: Omit<ModelNode, 'added' | 'deletes' | 'restores' | 'uncertain'>): ModelNode {
    const node: ModelNode = { ...n, added: 'pending', deletes: 0, restores: 0, uncertain: false };
    this.nodes.set(this.key(n.project, n.id), node);
    return node;
  }

  /** One or two nodes; parents are recent live nodes of any server (the second node may name the first). */
  private async add(server: number, project: string, random: () => number, nextId: () => string): Promise<void> {
    const recent = this.liveActors(project).slice(-30);
    const made: ModelNode[] = [];
    for (let k = 0, count = random() < 0.3 ? 2 : 1; k < count; k++) {
      const id = nextId();
      const parents = new Set<string>();
      const choices = k === 1 && random() < 0.5 ? [made[0]!.id] : [];
      for (let p = random() < 0.3 ? 0 : 1 + Math.floor(random() * 2); p > 0 && recent.length; p--) choices.push(recent[Math.floor(random() * recent.length)]!.id);
      for (const c of choices) parents.add(c);
      made.push(this.register({ project, id, role: 'actor', thought: `Note ${id} from server ${server}.\nDetail ${random().toFixed(6)}`, tags: [`s${server}`, `p${id.length % 3}`], parents }));
    }
    await this.write(server, 'add_nodes', project, made, {
      nodes: made.map((n) => ({ id: n.id, thought: n.thought, role: n.role, tags: n.tags, parents: [...n.parents] })),
    });
  }

  /** A summary of 2–4 live nodes whose text is the extractive summary of its segment (what a recalculation writes). */
  private async addSummary(server: number, project: string, random: () => number, id: string): Promise<void> {
    const live = this.liveActors(project);
    if (live.length < 2) return;
    const segment = new Set<string>();
    for (let k = 2 + Math.floor(random() * 3); k > 0; k--) segment.add(live[Math.floor(random() * live.length)]!.id);
    const ids = [...segment];
    const thought = extractiveSummary(ids.map((s) => this.nodes.get(this.key(project, s))!));
    const node = this.register({ project, id, role: 'summary', thought, tags: ['summary', `s${server}`], parents: new Set(), segment: ids });
    await this.write(server, 'add_nodes', project, [node], { nodes: [{ id, thought, role: 'summary', tags: node.tags, summarizedSegment: ids }] });
  }

  private async write(server: number, tool: string, project: string, made: ModelNode[], args: Record<string, unknown>): Promise<void> {
    const r = await this.call(server, tool, { projectContext: this.context(project), ...args });
    if (!r.isError) {
      const answer = r.structuredContent as Structured;
      if (answer.project !== project) this.violations.push(`${tool}: answered project ${answer.project}, expected ${project}`);
      for (const n of made) n.added = 'acked';
      if (made[0]!.role === 'summary') this.counts.summaries++;
      else this.counts.added += made.length;
    } else if (/^invalid_arguments: .*do not exist/.test(answerText(r))) {
      // A parent (or segment node) was deleted by another server meanwhile: refused, nothing added.
      for (const n of made) n.added = 'refused';
      this.counts.addRefused++;
    } else {
      for (const n of made) n.added = 'unknown';
      this.errors.push(answerText(r));
    }
  }

  /**
   * Deletes one of the server's nodes. Dependents (children other servers added) make the call answer
   * `success: false` with nothing deleted; it is then confirmed by calling again with them included, a few times
   * at most (more dependents may appear meanwhile).
   */
  private async delete(server: number, project: string, target: ModelNode, recalculateSummaries: boolean, deletedSets: Array<{ project: string; ids: string[] }>): Promise<void> {
    let ids = [target.id];
    for (let round = 0; round < 4; round++) {
      const r = await this.call(server, 'delete_nodes', { projectContext: this.context(project), nodeIds: ids, recalculateSummaries, reason: `stress ${server}` });
      if (r.isError) {
        // Another server deleted one of them meanwhile (as a dependent of its own delete): refused, nothing deleted.
        if (/^not_found: /.test(answerText(r))) return void this.counts.deleteRefused++;
        for (const id of ids) this.markUncertain(project, id);
        return void this.errors.push(answerText(r));
      }
      const a = r.structuredContent as Structured;
      if (!a.success) {
        const dependents = (a.dependentNodes as Structured[]).map((d) => d.nodeId as string);
        if (!dependents.length || a.deletedNodeIds.length || a.backupPath !== null) this.violations.push(`delete_nodes ${ids}: a refusal must list dependents and delete nothing: ${JSON.stringify(a)}`);
        this.counts.dependentsRefused++;
        ids = [...new Set([...ids, ...dependents])];
        continue;
      }
      const deleted = a.deletedNodeIds as string[];
      if ([...deleted].sort().join() !== [...ids].sort().join()) this.violations.push(`delete_nodes ${ids}: answered deletedNodeIds ${deleted}`);
      for (const id of deleted) {
        const n = this.nodes.get(this.key(project, id));
        if (n) n.deletes++;
        else this.violations.push(`delete_nodes deleted ${project}/${id}, a node no server added`);
      }
      const backup = /\/(\d+)$/.exec(String(a.backupPath));
      if (!backup) this.violations.push(`delete_nodes ${ids}: backupPath ${a.backupPath} is not a database backup`);
      else this.backups.push({ project, id: Number(backup[1]), nodeIds: deleted });
      deletedSets.push({ project, ids: deleted });
      this.counts.deletes++;
      if (round > 0) this.counts.deletesConfirmed++;
      this.counts.recalculated += (a.summaries as Structured[]).filter((s) => s.status === 'recalculated').length;
      return;
    }
  }

  /** Restores one set this server deleted (only the deleter restores a set, so a refusal here is a defect). */
  private async restore(server: number, set: { project: string; ids: string[] }, deletedSets: Array<{ project: string; ids: string[] }>): Promise<void> {
    deletedSets.splice(deletedSets.indexOf(set), 1);
    const r = await this.call(server, 'restore_nodes', { projectContext: this.context(set.project), nodeIds: set.ids });
    if (r.isError) {
      for (const id of set.ids) this.markUncertain(set.project, id);
      return void this.errors.push(answerText(r));
    }
    const a = r.structuredContent as Structured;
    if ([...a.restoredNodeIds].sort().join() !== [...set.ids].sort().join()) this.violations.push(`restore_nodes ${set.ids}: answered restoredNodeIds ${a.restoredNodeIds}`);
    for (const id of a.restoredNodeIds as string[]) this.nodes.get(this.key(set.project, id))!.restores++;
    for (const d of a.droppedParents as Array<{ nodeId: string; parents: string[] }>) {
      for (const p of d.parents) this.nodes.get(this.key(set.project, d.nodeId))!.parents.delete(p);
      this.counts.droppedParents += d.parents.length;
    }
    this.counts.restores++;
  }

  /** Pages through a project (sometimes filtered by one server's tag): no id may come twice across the pages. */
  private async page(server: number, project: string, random: () => number): Promise<void> {
    const tags = random() < 0.3 ? [`s${Math.floor(random() * 4)}`] : undefined;
    const limit = 3 + Math.floor(random() * 8);
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const r = await this.call(server, 'list_nodes', { projectContext: this.context(project), limit, ...(tags ? { tags } : {}), ...(cursor ? { cursor } : {}) });
      if (r.isError) return void this.errors.push(answerText(r));
      const a = r.structuredContent as Structured;
      this.counts.pages++;
      for (const n of a.nodes as Structured[]) {
        if (seen.has(n.id)) this.violations.push(`list_nodes ${project} (limit ${limit}): ${n.id} came twice`);
        seen.add(n.id);
        if (!this.nodes.has(this.key(project, n.id))) this.violations.push(`list_nodes ${project}: ${n.id} is no node any server added`);
        if (tags && !tags.every((t) => (n.tags as string[]).includes(t))) this.violations.push(`list_nodes ${project} tags ${tags}: ${n.id} has ${n.tags}`);
      }
      cursor = a.nextCursor ?? undefined;
    } while (cursor);
    this.counts.listings++;
  }

  /** Full service: one fresh node added through `server`, then the project's first page read through it. */
  async probe(server: number): Promise<string | undefined> {
    const project = this.projects[0]!;
    const node = this.register({ project, id: `${this.tag}${server}probe`, role: 'actor', thought: `Probe from server ${server}.`, tags: ['probe'], parents: new Set() });
    const errorsBefore = this.errors.length;
    await this.write(server, 'add_nodes', project, [node], { nodes: [{ id: node.id, thought: node.thought, role: node.role, tags: node.tags }] });
    if (node.added !== 'acked') return `add_nodes through server ${server}: ${this.errors.slice(errorsBefore).join('; ') || 'refused'}`;
    const r = await this.call(server, 'list_nodes', { projectContext: this.context(project), limit: 5 });
    if (r.isError) return `list_nodes through server ${server}: ${answerText(r)}`;
    return undefined;
  }

  private markUncertain(project: string, id: string): void {
    const n = this.nodes.get(this.key(project, id));
    if (n) n.uncertain = true;
  }

  /**
   * The invariants, read straight from the database (`query`) and through the servers' tools (`servers` of them):
   * every node any server added is present exactly once — live or as one deletion record, as its acknowledged
   * deletes and restores say —, with the content it was added with (parents less those a restore dropped); every
   * summary's text is the extractive summary of its segment; refused adds left nothing; no node appears that no
   * server added; each project's counters match its rows; the backups of acknowledged deletes exist with the nodes
   * they deleted (the newest 50 per project are kept); list_nodes pages through each project giving every live node
   * exactly once. Returns what is broken (empty when all holds).
   */
  async verify(query: (sql: string, params: unknown[]) => Promise<Structured[]>, servers: number): Promise<string[]> {
    const out = [...this.violations];
    const live = new Map<string, Structured>();
    const records = new Map<string, Structured[]>();
    for (const row of await query('SELECT project, id, node::text AS node FROM wg_knowledge_nodes WHERE project = ANY($1)', [this.projects])) {
      live.set(this.key(row.project, row.id), JSON.parse(row.node));
    }
    for (const row of await query('SELECT project, node_id, record::text AS record FROM wg_knowledge_deleted WHERE project = ANY($1) ORDER BY seq', [this.projects])) {
      const k = this.key(row.project, row.node_id);
      records.set(k, [...(records.get(k) ?? []), JSON.parse(row.record).nodeData]);
    }
    const present = (k: string) => (live.has(k) ? 1 : 0) + (records.get(k)?.length ?? 0);
    for (const [k, n] of this.nodes) {
      const copies = present(k);
      if (n.added === 'refused') {
        if (copies) out.push(`${k}: its add was refused, yet it is stored ${copies} time(s)`);
        continue;
      }
      if (n.added === 'pending') out.push(`${k}: its add was never answered`);
      if (n.added === 'unknown' ? copies > 1 : copies !== 1) out.push(`${k}: stored ${copies} time(s) (live ${live.has(k)}, ${records.get(k)?.length ?? 0} deletion record(s)), expected once`);
      if (n.added !== 'acked' || n.uncertain || copies !== 1) continue;
      if (n.deletes - n.restores !== 0 && n.deletes - n.restores !== 1) out.push(`${k}: ${n.deletes} acknowledged deletes against ${n.restores} restores`);
      const expectLive = n.deletes === n.restores;
      if (live.has(k) !== expectLive) out.push(`${k}: ${live.has(k) ? 'live' : 'deleted'}, but the acknowledged writes (${n.deletes} deletes, ${n.restores} restores) leave it ${expectLive ? 'live' : 'deleted'}`);
      const stored = live.get(k) ?? records.get(k)![0]!;
      const content = (s: Structured) => JSON.stringify({ role: s.role, tags: s.tags, parents: [...s.parents].sort(), thought: n.role === 'summary' ? undefined : s.thought });
      const expected = content({ ...n, parents: n.parents });
      if (content(stored) !== expected) out.push(`${k}: stored ${content(stored)}, expected ${expected}`);
      if (n.role === 'summary') {
        const segment = (stored.summarizedSegment ?? []) as string[];
        if (!segment.every((id) => n.segment!.includes(id))) out.push(`${k}: segment ${segment} is not part of the one it was added with (${n.segment})`);
        const text = extractiveSummary(segment.map((id) => this.nodes.get(this.key(n.project, id)) ?? { id, thought: `?${id}` }));
        if (stored.thought !== text) out.push(`${k}: summary text '${stored.thought}' is not the summary of its segment ${segment} ('${text}')`);
      }
    }
    for (const k of new Set([...live.keys(), ...records.keys()])) if (!this.nodes.has(k)) out.push(`${k}: stored, but no server added it`);
    for (const p of await query('SELECT project, nodes::int AS nodes, deleted::int AS deleted FROM wg_knowledge_projects WHERE project = ANY($1)', [this.projects])) {
      const liveRows = [...live.keys()].filter((k) => k.startsWith(`${p.project}/`)).length;
      const recordRows = [...records].filter(([k]) => k.startsWith(`${p.project}/`)).reduce((a, [, r]) => a + r.length, 0);
      if (p.nodes !== liveRows || p.deleted !== recordRows) out.push(`project ${p.project}: counters say ${p.nodes} nodes / ${p.deleted} deleted, rows are ${liveRows} / ${recordRows}`);
    }
    out.push(...(await this.verifyBackups(query)));
    out.push(...(await this.verifyPaging(live, servers)));
    return out;
  }

  private async verifyBackups(query: (sql: string, params: unknown[]) => Promise<Structured[]>): Promise<string[]> {
    const out: string[] = [];
    const rows = await query(
      `SELECT b.project, b.id::int AS id, array_remove(array_agg(n.node_id ORDER BY n.node_id), NULL) AS ids FROM wg_knowledge_backups b
       LEFT JOIN wg_knowledge_backup_nodes n ON n.backup_id = b.id WHERE b.project = ANY($1) GROUP BY b.project, b.id`,
      [this.projects],
    );
    for (const project of this.projects) {
      const stored = new Map(rows.filter((r) => r.project === project).map((r) => [r.id as number, (r.ids as string[]).join()]));
      const acked = this.backups.filter((b) => b.project === project);
      // Only the newest 50 backups of a project are kept (the store's default backupMaxCount).
      const keptFrom = stored.size >= 50 ? Math.min(...stored.keys()) : 0;
      if (stored.size > 50 || stored.size < Math.min(50, acked.length)) out.push(`project ${project}: ${stored.size} backups for ${acked.length} acknowledged deletes`);
      for (const b of acked) {
        if (b.id < keptFrom) continue;
        const ids = [...b.nodeIds].sort().join();
        if (stored.get(b.id) !== ids) out.push(`backup ${project}/${b.id} of the delete of ${ids}: ${stored.has(b.id) ? `holds ${stored.get(b.id)}` : 'missing'}`);
      }
    }
    return out;
  }

  /** Through the servers: each project paged whole (limit 50, then 7 on another server) gives each live row once. */
  private async verifyPaging(live: Map<string, Structured>, servers: number): Promise<string[]> {
    const out: string[] = [];
    let s = 0;
    for (const project of this.projects) {
      const expected = [...live.keys()].filter((k) => k.startsWith(`${project}/`)).map((k) => k.slice(project.length + 1)).sort();
      for (const limit of [50, 7]) {
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const r = await this.call(s++ % servers, 'list_nodes', { projectContext: this.context(project), limit, ...(cursor ? { cursor } : {}) });
          if (r.isError) return [...out, `list_nodes ${project}: ${answerText(r)}`];
          const a = r.structuredContent as Structured;
          ids.push(...(a.nodes as Structured[]).map((n) => n.id as string));
          cursor = a.nextCursor ?? undefined;
        } while (cursor);
        if ([...ids].sort().join() !== expected.join()) out.push(`list_nodes ${project} (limit ${limit}): ${ids.length} ids (${new Set(ids).size} distinct), the database has ${expected.length} live`);
      }
    }
    return out;
  }
}
