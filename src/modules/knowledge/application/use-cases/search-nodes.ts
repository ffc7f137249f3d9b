import { inject, injectable } from 'tsyringe';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeSearchHit, KnowledgeSearchQuery, KnowledgeStore } from '../ports/knowledge-store';
import { InvalidArgumentsError } from '../../../../kernel/errors';
import { makeSnippet, parseSearchQuery, staleSearchCursorError, termMatcher, toBrief, type SearchQuery } from '../../domain';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { searchNodesSchemas } from '../knowledge.tool-schemas';
import { projectInReach, resolveInReach } from '../services/knowledge-reach';
import { NotFoundError, PathNotAllowedError } from '../../../../kernel/errors';

/** The tool's input, as its schema in knowledge.tool-schemas.ts describes it. */
export type SearchNodesInput = ToolInput<typeof searchNodesSchemas>;
/** The tool's answer, as its output schema describes it. */
export type SearchNodesOutput = ToolOutput<typeof searchNodesSchemas>;

export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 100;

function timeBound(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new InvalidArgumentsError(`${field}: expected an ISO 8601 time such as 2026-01-31T12:00:00Z (got '${value}')`, field);
  return ms;
}

/**
 * `search_nodes`: ranked nodes of one project, or of several (each searched on its own, hits merged by score; a
 * project's cursor moves only past the hits it gave to the page; a finished one's total stays in the sum). See
 * docs/knowledge-graph.md, "Search".
 */
@injectable()
export class SearchNodes implements UseCase<SearchNodesInput, SearchNodesOutput> {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: SearchNodesInput, ctx?: CallContext): Promise<SearchNodesOutput> {
    const query = parseSearchQuery(input.query);
    const sinceMs = timeBound(input.since, 'since');
    const untilMs = timeBound(input.until, 'until');
    if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
      throw new InvalidArgumentsError(`since: ${input.since} is after until (${input.until})`, 'since');
    }
    const limit = Math.min(Math.max(1, Math.floor(input.limit ?? SEARCH_DEFAULT_LIMIT)), SEARCH_MAX_LIMIT);
    const base: Omit<KnowledgeSearchQuery, 'limit' | 'cursor'> = {
      query,
      ranking: 'text',
      role: input.role,
      tags: input.tags,
      sinceMs,
      untilMs,
      includeDeleted: input.includeDeleted ?? false,
      signal: ctx?.signal,
    };
    const matcher = matcherOf(query);
    const shape = (project: string, h: KnowledgeSearchHit) => ({
      ...toBrief(h.node),
      project,
      score: h.score,
      snippet: makeSnippet(h.node.thought, matcher),
      ...(h.deleted ? { deleted: true } : {}),
    });

    if (input.projects === undefined) {
      if (input.projectContext === undefined) {
        throw new InvalidArgumentsError('projectContext: expected the project to search (or projects: [...] or "*")', 'projectContext');
      }
      const { id, shown } = await resolveInReach(this.store, input.projectContext, ctx);
      const page = await this.store.reader(id).search({ ...base, limit, cursor: input.cursor });
      return { project: shown, hits: page.hits.map((h) => shape(shown, h)), total: page.total, totalExact: page.totalExact, nextCursor: page.nextCursor };
    }
    if (input.projectContext !== undefined) {
      throw new InvalidArgumentsError('projects: give projectContext or projects, not both', 'projects');
    }
    const projects = await this.targets(input.projects, ctx);
    // Per open project its cursor (undefined: not started); the projects finished on earlier pages only as their sum.
    const state: MultiCursor = input.cursor !== undefined ? decodeMulti(input.cursor) : { open: Object.fromEntries(projects.map((p) => [p, undefined])), doneTotal: 0, doneExact: true };
    const merged: Array<{ project: string; hit: KnowledgeSearchHit }> = [];
    const pages = new Map<string, { more: boolean; total: number; totalExact: boolean }>();
    // The sum of every project's total: exact only if each is (a capped one makes the sum a lower bound too). A
    // project finished earlier still counts: the cursor kept its total, so every page answers the same sum.
    let total = state.doneTotal;
    let totalExact = state.doneExact;
    for (const project of projects) {
      if (!(project in state.open)) continue;
      const page = await this.store.reader(project).search({ ...base, limit, cursor: state.open[project] });
      total += page.total;
      totalExact &&= page.totalExact;
      pages.set(project, { more: page.nextCursor !== null, total: page.total, totalExact: page.totalExact });
      for (const hit of page.hits) merged.push({ project, hit });
    }
    merged.sort((a, b) => b.hit.score - a.hit.score || (a.project < b.project ? -1 : a.project > b.project ? 1 : 0));
    const taken = merged.slice(0, limit);
    const next: MultiCursor = { open: {}, doneTotal: state.doneTotal, doneExact: state.doneExact };
    for (const [project, page] of pages) {
      const mine = merged.filter((m) => m.project === project);
      const used = taken.filter((m) => m.project === project);
      if (used.length === mine.length && !page.more) {
        next.doneTotal += page.total;
        next.doneExact &&= page.totalExact;
      } else next.open[project] = used.length ? used[used.length - 1]!.hit.after : state.open[project];
    }
    return {
      project: null,
      hits: taken.map((m) => shape(m.project, m.hit)),
      total,
      totalExact,
      nextCursor: Object.keys(next.open).length ? encodeMulti(next) : null,
    };
  }

  /**
   * The projects a `projects` argument names that the caller may read, resolved, each once, sorted: with `"*"` every
   * project within its reach; a named one out of reach (a folder outside its roots) is left out, as a missing one is.
   */
  private async targets(projects: readonly string[] | '*', ctx?: CallContext): Promise<string[]> {
    const ids: string[] = [];
    if (projects === '*') {
      for (const p of await this.store.listProjects()) if (await projectInReach(this.store, p.project, ctx)) ids.push(p.project);
    } else {
      for (const p of projects) {
        try {
          ids.push((await resolveInReach(this.store, p, ctx, { field: 'projects' })).id);
        } catch (e) {
          if (!(e instanceof PathNotAllowedError) && !(e instanceof NotFoundError)) throw e;
        }
      }
    }
    return [...new Set(ids)].sort();
  }
}

/** Exact terms and prefixes a snippet marks. */
function matcherOf(query: SearchQuery) {
  const exact: string[] = [];
  const prefixes: string[] = [];
  for (const g of query.groups) {
    if (g.negated) continue;
    for (const it of g.items) {
      if (it.kind === 'prefix') prefixes.push(it.term);
      else if (it.kind === 'word') exact.push(it.term);
      else exact.push(...it.terms);
    }
  }
  return termMatcher(exact, prefixes);
}

/**
 * A search over several projects between pages: each open project's own cursor (undefined: from its start, on its
 * first page again) and the finished projects' totals as one sum and its exactness — two numbers however many
 * finished, so the cursor grows only with the projects still open.
 */
interface MultiCursor {
  open: Record<string, string | undefined>;
  doneTotal: number;
  doneExact: boolean;
}

const MULTI_PREFIX = 'm2.';
/** The several-projects cursor before finished totals were kept: refused as stale (its project cursors are too). */
const RETIRED_MULTI_PREFIX = 'm1.';

function encodeMulti(c: MultiCursor): string {
  const open = Object.fromEntries(Object.entries(c.open).map(([p, cursor]) => [p, cursor ?? '']));
  return MULTI_PREFIX + Buffer.from(JSON.stringify([open, c.doneTotal, c.doneExact]), 'utf8').toString('base64url');
}

function decodeMulti(cursor: string): MultiCursor {
  const bad = () => new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor of a search_nodes call over several projects`, 'cursor');
  const prefix = cursor.startsWith(RETIRED_MULTI_PREFIX) ? RETIRED_MULTI_PREFIX : MULTI_PREFIX;
  if (!cursor.startsWith(prefix)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor.slice(prefix.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const cursors = (o: unknown): o is Record<string, string> => typeof o === 'object' && o !== null && !Array.isArray(o) && Object.values(o).every((c) => typeof c === 'string');
  if (prefix === RETIRED_MULTI_PREFIX) {
    if (!cursors(v)) throw bad();
    throw staleSearchCursorError();
  }
  if (!Array.isArray(v) || v.length !== 3) throw bad();
  const [open, doneTotal, doneExact] = v as unknown[];
  if (!cursors(open) || !Number.isSafeInteger(doneTotal) || (doneTotal as number) < 0 || typeof doneExact !== 'boolean') throw bad();
  return { open: Object.fromEntries(Object.entries(open).map(([p, c]) => [p, c === '' ? undefined : c])), doneTotal: doneTotal as number, doneExact };
}
