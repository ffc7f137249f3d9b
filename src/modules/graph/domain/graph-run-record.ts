import type { GraphToolDefinition } from './graph-tool-definition';
import type { GraphTool, NodeExecutionRecord } from './types';

/**
 * How a recorded run ended — or, for the live record of a run still going (saved while it runs so dashboards draw it
 * as it happens), `running` or `paused`; the final record replaces it.
 */
export type RecordedRunStatus = FinalRunStatus | 'running' | 'paused';
/** How an ended run ended. */
export type FinalRunStatus = 'completed' | 'failed' | 'stopped';

/** The error a failed run ended with (the MCP server's stderr tail when an `mcp` node failed). */
export interface RecordedRunError {
  code: string;
  message: string;
  nodeId?: string;
  stderrTail?: string;
}

/** The brief of a recorded run (what lists show). */
export interface GraphRunSummary {
  runId: string;
  tool: string;
  status: RecordedRunStatus;
  /** ISO times. */
  startedAt: string;
  endedAt: string;
  durationMs: number;
  nodeExecutions: number;
  error?: string;
  /** Who ran it: the identity's name and the agent's client name (runs recorded before identities have none). */
  actor?: { name: string; client?: string };
  /** Live records only: the node the run is at (running it, or paused before it). */
  currentNode?: string;
  /** A run of a definition not saved (graph_tool_run with `tool`): its tool is in no file. */
  draft?: true;
}

/** The largest draft definition a run record keeps (JSON bytes); a larger one is named in `draftOmitted`. */
export const DRAFT_DEFINITION_MAX_BYTES = 256 * 1024;

/**
 * A graph run as recorded in the data dir after it ended: its arguments, result or error, and its node executions
 * (each with its output), from which the context any node saw is derived (time travel).
 */
export interface GraphRunRecord extends GraphRunSummary {
  /** The graph file declaring the tool, when loaded from a file. */
  file?: string;
  /** The graph's server title. */
  graph?: string;
  input: unknown;
  result?: unknown;
  runError?: RecordedRunError;
  /** The last {@link GraphRunRecord.executions} of the run; `truncated` when earlier ones were left out. */
  executions: NodeExecutionRecord[];
  truncated: boolean;
  /**
   * A draft's run: the definition it ran (newest format, as graph_tool_get answers a tool), so the run is drawn as it
   * ran — unless over {@link DRAFT_DEFINITION_MAX_BYTES}, when `draftOmitted` says so instead.
   */
  definition?: GraphToolDefinition;
  draftOmitted?: string;
}

export function summarizeRun(r: GraphRunRecord): GraphRunSummary {
  return {
    runId: r.runId,
    tool: r.tool,
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    durationMs: r.durationMs,
    nodeExecutions: r.nodeExecutions,
    ...(r.error ? { error: r.error } : {}),
    ...(r.actor ? { actor: r.actor } : {}),
    ...(r.currentNode !== undefined ? { currentNode: r.currentNode } : {}),
    ...(r.draft ? { draft: true as const } : {}),
  };
}

/**
 * The expression context node execution `index` saw: the latest output of every node that ran before it (what
 * `$.nodeId` gave), built from the recorded executions.
 */
export function contextBefore(executions: readonly NodeExecutionRecord[], index: number): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  for (const e of executions) {
    if (e.executionIndex >= index) break;
    if (!e.error) context[e.nodeId] = e.output;
  }
  return context;
}

/** What node execution `index` received: the previous execution's output, or the tool's arguments for the first. */
export function inputOf(record: GraphRunRecord, index: number): unknown {
  const pos = record.executions.findIndex((e) => e.executionIndex === index);
  if (pos < 0) return undefined;
  if (pos === 0) return index === 0 ? record.input : undefined;
  return record.executions[pos - 1].output;
}

/**
 * A graph tool as a drawing: its nodes with their type and a short detail, edges labelled with switch conditions (a
 * short label, and the JSON Logic rule itself, which a drawing may spell out as it likes).
 */
export interface GraphDrawing {
  nodes: Array<{ id: string; type: string; detail?: string }>;
  edges: Array<{ source: string; target: string; label?: string; rule?: unknown }>;
}

const DETAIL_CHARS = 60;

function short(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > DETAIL_CHARS ? `${one.slice(0, DETAIL_CHARS - 1)}…` : one;
}

export function drawGraphTool(tool: GraphTool): GraphDrawing {
  const nodes: GraphDrawing['nodes'] = [];
  const edges: GraphDrawing['edges'] = [];
  for (const n of tool.nodes) {
    switch (n.type) {
      case 'entry':
        nodes.push({ id: n.id, type: n.type });
        edges.push({ source: n.id, target: n.next });
        break;
      case 'mcp':
        nodes.push({ id: n.id, type: n.type, detail: `${n.server}.${n.tool}` });
        edges.push({ source: n.id, target: n.next });
        break;
      case 'transform':
        nodes.push({ id: n.id, type: n.type, detail: short(n.expr) });
        edges.push({ source: n.id, target: n.next });
        break;
      case 'switch':
        nodes.push({ id: n.id, type: n.type, detail: `${n.conditions.length} conditions` });
        for (const c of n.conditions) {
          edges.push(c.rule === undefined ? { source: n.id, target: c.target, label: 'default' } : { source: n.id, target: c.target, label: short(JSON.stringify(c.rule)), rule: c.rule });
        }
        break;
      case 'exit':
        nodes.push({ id: n.id, type: n.type });
        break;
    }
  }
  return { nodes, edges };
}
