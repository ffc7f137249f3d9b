/**
 * The task DAG as an MCP Apps view (ui://workgraph/task-dag): the dashboard's own DAG components (pages/TaskDag.tsx,
 * components/TaskDetails.tsx) over the tool results the host hands it — get_project_graph's graph as is;
 * get_task_details' or validate_task_loop's task selected in its project's DAG (the DAG itself read once with
 * get_project_graph: those results do not hold it); a later result updates what is drawn. Actions (reset a task,
 * release a claim) are tool calls through the host, offered only where the server allows them. A change made
 * elsewhere (another client resets a task) is heard through the server's resource_changes tool and re-read.
 */
import { createRoot } from 'react-dom/client';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import '@xyflow/react/dist/style.css';
import '../styles.css';
import './view.css';
import { DagLayout } from '../pages/TaskDag';
import { TaskSourceContext, type TaskDetailData, type TaskSource } from '../components/task-source';
import { StatusBadge } from '../components/StatusBadge';
import { STATUSES } from '../status';
import type { Loaded } from '../api';
import type { TaskGraphData, TaskNode } from '../types';
import { callTool, connectHost, useHost, useRefreshOnReturn, useResourceChanges, viewSettings, type ToolResult } from './host';
import { ViewFrame } from './ViewFrame';

connectHost('task DAG');
const settings = viewSettings();

interface RunBanner {
  nodeId: string;
  passed: boolean | null;
  running: boolean;
  message?: string;
  stdout?: string;
  stderr?: string;
}

/** What one result says about the DAG. */
function readResult(r: Record<string, unknown>): { graph?: TaskGraphData; node?: TaskNode; project?: string; details?: TaskDetailData; run?: RunBanner } {
  if (Array.isArray(r.nodes)) return { graph: r as unknown as TaskGraphData, project: r.project_id as string };
  const node = r.node as TaskNode | undefined;
  if (!node) return {};
  if (Array.isArray(r.transitions)) return { node, project: r.project as string, details: r as unknown as TaskDetailData };
  if ('validation_passed' in r || 'running' in r) {
    const result = r.result as { stdout?: string; stderr?: string } | null | undefined;
    return {
      node,
      run: { nodeId: node.id, passed: (r.validation_passed as boolean | null) ?? null, running: r.running === true, message: r.message as string | undefined, stdout: result?.stdout, stderr: result?.stderr },
    };
  }
  return { node };
}

/** The graph with one task replaced by its newer state (counts recomputed). */
function withNode(graph: TaskGraphData, node: TaskNode): TaskGraphData {
  const nodes = graph.nodes.map((n) => (n.id === node.id ? node : n));
  const counts: Record<string, number> = {};
  for (const n of nodes) counts[n.status] = (counts[n.status] ?? 0) + 1;
  return { ...graph, nodes, counts };
}

function TaskDagApp() {
  const host = useHost();
  const [graph, setGraph] = useState<TaskGraphData>();
  const [selected, setSelected] = useState<string>();
  const [run, setRun] = useState<RunBanner>();
  const [error, setError] = useState<string>();
  const handedDetails = useRef(new Map<string, TaskDetailData>());
  const project = graph?.project_id ?? (host.input?.project as string | undefined);

  const loadGraph = useCallback((p: string | undefined) => {
    if (!p) return;
    callTool<TaskGraphData>('get_project_graph', { project: p }).then(
      (g) => {
        setGraph(g);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  }, []);

  // Each result handed to the view, in order: a graph replaces the drawing, a task updates its node and is selected.
  const seen = useRef(0);
  useEffect(() => {
    for (const r of host.results.slice(seen.current)) {
      if (r.error !== undefined) {
        setError(r.error);
        continue;
      }
      const read = readResult(r.structured ?? {});
      if (read.graph) setGraph(read.graph);
      if (read.details) handedDetails.current.set(read.details.node.id, read.details);
      if (read.run) setRun(read.run);
      if (read.node) {
        const node = read.node;
        setSelected(node.id);
        setGraph((g) => (g ? withNode(g, node) : g));
        if (!graph) loadGraph(read.project ?? (host.input?.project as string | undefined));
      }
    }
    seen.current = host.results.length;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [host.results]);

  useRefreshOnReturn(useCallback(() => loadGraph(project), [loadGraph, project]));
  // Changes made elsewhere (another client, agent or the CLI): the graph read again, the selected task's details too.
  // (The graph's own project id: the input's project may be a name, which is no resource URI.)
  useResourceChanges(
    graph ? [`workgraph://projects/${graph.project_id}/tasks`] : [],
    useCallback(() => {
      handedDetails.current.clear();
      loadGraph(project);
    }, [loadGraph, project]),
  );

  const source = useMemo<TaskSource>(() => {
    // The claimant's agent name goes with the call (the server still checks the caller is the claimant's identity).
    const act = (tool: string) => async (p: string, nodeId: string, agent?: string) => {
      const out = await callTool<{ node?: TaskNode }>(tool, { project: p, nodeId, ...(agent ? { agent } : {}), reason: 'from the task DAG view' });
      const node = out.node;
      if (node) setGraph((g) => (g ? withNode(g, node) : g));
      handedDetails.current.delete(nodeId);
      return out;
    };
    return {
      useDetails: (p, nodeId, revision) => useToolDetails(p, nodeId, revision, handedDetails.current),
      ...(settings.actions ? { reset: act('reset_task_node'), release: act('release_task') } : {}),
    };
  }, []);

  return (
    <ViewFrame title={graph ? graph.project_name : 'Task DAG'} subtitle={graph?.project_id} error={host.error ?? error} onRefresh={project ? () => loadGraph(project) : undefined}>
      {graph ? (
        <>
          <div className="badges view-counts" data-testid="view-counts">
            {STATUSES.filter((s) => graph.counts[s]).map((s) => <StatusBadge key={s} status={s} count={graph.counts[s]} />)}
            <span className="muted small" data-testid="view-edges">{graph.nodes.reduce((n, t) => n + t.depends_on.length, 0)} dependencies</span>
          </div>
          {run ? <RunResult run={run} /> : null}
          <TaskSourceContext.Provider value={source}>
            <DagLayout graph={graph} initialSelected={selected} />
          </TaskSourceContext.Provider>
        </>
      ) : !error && !host.error ? (
        <div className="muted">{host.connected ? 'Waiting for the tool result…' : 'Connecting to the host…'}</div>
      ) : null}
    </ViewFrame>
  );
}

function RunResult({ run }: { run: RunBanner }) {
  const verdict = run.running ? 'still running' : run.passed ? 'passed' : run.passed === false ? 'failed' : 'no verdict';
  return (
    <details className={`view-run ${run.passed ? 'passed' : run.passed === false ? 'failed' : ''}`} data-testid="view-run" open={run.passed === false}>
      <summary>
        Validation of <code>{run.nodeId}</code> {verdict}
        {run.message ? <span className="muted small"> — {run.message}</span> : null}
      </summary>
      {run.stdout ? (<><div className="small muted">stdout (tail)</div><pre className="code">{run.stdout}</pre></>) : null}
      {run.stderr ? (<><div className="small muted">stderr (tail)</div><pre className="code">{run.stderr}</pre></>) : null}
    </details>
  );
}

/** A task's details: the one a get_task_details result handed the view, else read with get_task_details. */
function useToolDetails(project: string, nodeId: string, revision: number, handed: Map<string, TaskDetailData>): Loaded<TaskDetailData> {
  const [data, setData] = useState<TaskDetailData | undefined>(() => handed.get(nodeId));
  const [error, setError] = useState<Error>();
  const load = useCallback(() => {
    const given = handed.get(nodeId);
    if (given) {
      setData(given);
      return;
    }
    callTool<TaskDetailData>('get_task_details', { project, nodeId }).then(setData, (e: Error) => setError(e));
  }, [project, nodeId, handed]);
  useEffect(() => load(), [load, revision]);
  return { data, error, loading: data === undefined && !error, reload: load };
}

createRoot(document.getElementById('root')!).render(<TaskDagApp />);

export type { ToolResult };
