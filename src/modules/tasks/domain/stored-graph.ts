import { MAX_ATTEMPT_RECORDS } from './output-tail';
import { TASK_GRAPH_FORMAT, type TaskErrorLog, type TaskGraph } from './task-graph';
import { ALL_TASK_STATUSES } from './task-status';

/** An attempt record the upgrade moved out of the graph file: it goes to the transition log before the file shrinks. */
export interface ArchivedAttemptRecord {
  node: string;
  record: TaskErrorLog;
}

/** A stored graph as read: the graph in today's shape, and what an upgrade from an older format changed. */
export type StoredGraphReading =
  | { ok: true; graph: TaskGraph; upgradedFrom?: number; archived: ArchivedAttemptRecord[] }
  | { ok: false; problem: string };

/**
 * One step of the task file's format migrations: from `from` to `from + 1`. Steps are pure and run in order on the
 * parsed document; the store writes the result (and the archived records) on its next write, never on a read.
 */
interface MigrationStep {
  from: number;
  describe: string;
  apply(graph: TaskGraph, archived: ArchivedAttemptRecord[]): TaskGraph;
}

export const TASK_GRAPH_MIGRATIONS: readonly MigrationStep[] = [
  {
    from: 1,
    describe: 'attempt records bounded to the latest 20 per node (older ones moved to the transition log); run owner lease field',
    apply(graph, archived) {
      const nodes = graph.nodes.map((n) => {
        if (n.error_logs.length <= MAX_ATTEMPT_RECORDS) return n;
        const cut = n.error_logs.length - MAX_ATTEMPT_RECORDS;
        for (const record of n.error_logs.slice(0, cut)) archived.push({ node: n.id, record });
        return { ...n, error_logs: n.error_logs.slice(cut) };
      });
      // Leases need nothing here: a VALIDATING node without `owner` keeps the old timeout rule (run-lease.ts).
      return { ...graph, nodes, schema_version: 2 };
    },
  },
];

/**
 * Checks a parsed `task_graph.json` (hand-edited files included) and brings it to {@link TASK_GRAPH_FORMAT}. Names the
 * first thing wrong (`nodes[0] is null, not a task node`, `nodes[2].status is "DONE", not one of …`) instead of
 * letting a later read fail on it.
 */
export function readStoredTaskGraph(doc: unknown): StoredGraphReading {
  const problem = findProblem(doc);
  if (problem) return { ok: false, problem };
  let graph = doc as TaskGraph;
  const from = graph.schema_version;
  if (from > TASK_GRAPH_FORMAT) {
    return {
      ok: false,
      problem: `it was written by a newer workgraph (format ${from}; this version reads formats 1 to ${TASK_GRAPH_FORMAT}): upgrade workgraph`,
    };
  }
  const archived: ArchivedAttemptRecord[] = [];
  for (const step of TASK_GRAPH_MIGRATIONS) {
    if (graph.schema_version === step.from) graph = step.apply(graph, archived);
  }
  return from < TASK_GRAPH_FORMAT ? { ok: true, graph, upgradedFrom: from, archived } : { ok: true, graph, archived };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function findProblem(doc: unknown): string | undefined {
  if (!isObject(doc)) return `the file holds ${describe(doc)}, not a task graph object`;
  if (!Number.isInteger(doc.schema_version) || (doc.schema_version as number) < 1) {
    return `schema_version is ${describe(doc.schema_version)}, not a format number`;
  }
  for (const key of ['project_id', 'project_name', 'project_root'] as const) {
    if (typeof doc[key] !== 'string' || doc[key] === '') return `${key} is ${describe(doc[key])}, not a non-empty string`;
  }
  if (!Number.isInteger(doc.revision)) return `revision is ${describe(doc.revision)}, not an integer`;
  if (!Array.isArray(doc.nodes)) return `nodes is ${describe(doc.nodes)}, not an array of task nodes`;
  const ids = new Set<string>();
  for (let i = 0; i < doc.nodes.length; i++) {
    const n: unknown = doc.nodes[i];
    const at = `nodes[${i}]`;
    if (!isObject(n)) return `${at} is ${describe(n)}, not a task node`;
    if (typeof n.id !== 'string' || n.id === '') return `${at}.id is ${describe(n.id)}, not a non-empty string`;
    if (ids.has(n.id)) return `${at}.id '${n.id}' appears twice`;
    ids.add(n.id);
    if (typeof n.title !== 'string') return `${at}.title is ${describe(n.title)}, not a string`;
    if (!ALL_TASK_STATUSES.includes(n.status as never)) {
      return `${at}.status is ${describe(n.status)}, not one of ${ALL_TASK_STATUSES.join(', ')}`;
    }
    if (!Array.isArray(n.depends_on) || n.depends_on.some((d) => typeof d !== 'string')) {
      return `${at}.depends_on is ${describe(n.depends_on)}, not an array of node ids`;
    }
    for (const key of ['current_attempt', 'max_attempts', 'timeout_ms'] as const) {
      if (!Number.isInteger(n[key]) || (n[key] as number) < 0) return `${at}.${key} is ${describe(n[key])}, not a whole number`;
    }
    if (!Array.isArray(n.error_logs) || n.error_logs.some((e) => !isObject(e))) {
      return `${at}.error_logs is ${describe(n.error_logs)}, not an array of attempt records`;
    }
    if (n.owner !== undefined && (!isObject(n.owner) || typeof n.owner.expires_at !== 'string' || !Number.isInteger(n.owner.pid))) {
      return `${at}.owner is ${describe(n.owner)}, not a run lease {host, boot_id, pid, run_id, expires_at}`;
    }
    if (n.last_run !== undefined && (!isObject(n.last_run) || typeof n.last_run.run_id !== 'string')) {
      return `${at}.last_run is ${describe(n.last_run)}, not a run result`;
    }
  }
  for (let i = 0; i < doc.nodes.length; i++) {
    const n = doc.nodes[i] as { id: string; depends_on: string[] };
    const unknown = n.depends_on.find((d) => !ids.has(d));
    if (unknown !== undefined) return `nodes[${i}].depends_on names '${unknown}', which is not a node of the graph`;
  }
  return undefined;
}
