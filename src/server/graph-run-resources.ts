import { GraphTokens, type GraphRunSummary } from '../modules/graph';
import type { ChangeTarget } from '../kernel/change-events';

/**
 * The graph module's MCP resource: a graph run, `workgraph://graph/runs/<runId>` (the id graph tool results carry in
 * `_meta["workgraph/executionId"]`), read as graph_inspect answers it — status, current node, result or error and one
 * page of its node executions, from this process's engine or the run store's record (a run of another process too) —
 * with `nextUri` naming the next page (`…?offset=<execution index>`). Updated (notifications/resources/updated, the
 * views' resource_changes) on every save of its record: its live record while it runs (~250 ms apart), its final one.
 * Within the reach of the identity that ran it (and `admin`), as graph_inspect is.
 */
const RUN_URI = /^workgraph:\/\/graph\/runs\/([A-Za-z0-9_-]{1,128})$/;
const RUN_PAGE_URI = /^workgraph:\/\/graph\/runs\/([A-Za-z0-9_-]{1,128})(?:\?offset=(\d{1,9}))?$/;
/** Runs `resources/list` names (the newest recorded ones within reach); any other is read by its URI. */
const LISTED_RUNS = 50;

export type GraphRunCall = <O>(token: symbol, input: unknown) => Promise<O>;

export const graphRunResourceTemplates = [
  {
    uriTemplate: 'workgraph://graph/runs/{runId}',
    name: 'graph run',
    description: 'A graph tool run as graph_inspect answers it (JSON): status, result or error, a page of its node executions; `nextUri` names the next page (…?offset=…).',
    mimeType: 'application/json',
  },
];

export function graphRunUri(runId: string): string {
  return `workgraph://graph/runs/${runId}`;
}

/** The newest recorded runs the caller reaches (the run store's, so those of every process sharing it). */
export async function listGraphRunResources(call: GraphRunCall) {
  const { runs } = await call<{ runs: GraphRunSummary[] }>(GraphTokens.ListGraphRuns, { limit: LISTED_RUNS });
  return runs.map((r) => ({
    uri: graphRunUri(r.runId),
    name: `graph run ${r.runId}`,
    title: `${r.tool}: run ${r.status} (${r.nodeExecutions} node executions)`,
    mimeType: 'application/json',
  }));
}

/** The resource's contents, or undefined when the URI is not a graph run's. */
export async function readGraphRunResource(uri: string, call: GraphRunCall) {
  const m = RUN_PAGE_URI.exec(uri);
  if (!m) return undefined;
  const offset = m[2] !== undefined ? Number(m[2]) : 0;
  const run = await call<{ history?: Array<{ executionIndex: number }>; historyTotal?: number }>(GraphTokens.InspectGraphExecution, { executionId: m[1], offset });
  const last = run.history?.at(-1)?.executionIndex;
  const next = last !== undefined && last + 1 < (run.historyTotal ?? 0) ? { nextUri: `${graphRunUri(m[1])}?offset=${last + 1}` } : {};
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...run, ...next }) }] };
}

/** The change target of a graph run's URI (its run id; the record's change events name the tool in `project`). */
export function graphRunTarget(uri: string): ChangeTarget | undefined {
  const m = RUN_URI.exec(uri);
  return m ? { kind: 'graph-run', id: m[1] } : undefined;
}
