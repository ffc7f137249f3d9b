/**
 * A graph tool run as an MCP Apps view (ui://workgraph/graph-run), with time travel: the run's tool drawn with the
 * dashboard's graph component (components/GraphDrawing.tsx) — the path the run took marked (how often each node ran,
 * the edges taken), the node of the execution travelled to highlighted —, the dashboard's own run timeline
 * (pages/Graphs.tsx), a slider and Previous / Next through the node executions, and for the execution travelled to,
 * its output, error and the expression context it saw. The result it is handed is drawn as is: the graph and the
 * path come in its `_meta` (graph_inspect adds them for a client that shows views); with its executionIndex, that
 * execution is shown without another call. Travelling elsewhere reads that execution with graph_inspect through the
 * host (clicking a node travels to its next execution); a later result updates the view. A run still going is kept
 * live (docs/mcp-apps.md "Live views"): the view polls `resource_changes` for `workgraph://graph/runs/<id>` — wherever
 * it runs: this server, another process on its data dir or database — and on a change reads the executions after the
 * newest it has (graph_inspect from that index, with the path's drawing) and the run's state; the path marking grows,
 * new executions join the timeline, and the position follows the newest unless the person travelled. Polls stop once
 * the run ended.
 */
import { createRoot } from 'react-dom/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import '@xyflow/react/dist/style.css';
import '../styles.css';
import './view.css';
import { Timeline, type Execution } from '../pages/Graphs';
import { GraphDrawing, type DrawnEdge, type DrawnNode, type DrawnPath } from '../components/GraphDrawing';
import { Json } from '../components/common';
import { callTool, callToolResult, connectHost, useHost, useResourceChanges, type ToolResult } from './host';
import { ViewFrame } from './ViewFrame';

connectHost('graph run');

interface Inspect {
  executionId: string;
  tool?: string;
  status?: string;
  currentNodeId?: string | null;
  executionCount?: number;
  result?: unknown;
  error?: { message?: string } | string;
  history?: Execution[];
  historyTotal?: number;
  executionIndex?: number;
  record?: Execution;
  context?: Record<string, unknown>;
}

/** graph_inspect's `_meta` key for views (RUN_GRAPH_META_KEY, graph module's inspect-graph-execution.ts). */
const RUN_GRAPH_META_KEY = 'workgraph/runGraph';
type RunGraph = { tool: string; nodes: DrawnNode[]; edges: DrawnEdge[] } & DrawnPath;

function runGraphOf(meta: Record<string, unknown> | undefined): RunGraph | undefined {
  const g = meta?.[RUN_GRAPH_META_KEY] as RunGraph | undefined;
  return g && Array.isArray(g.nodes) && Array.isArray(g.edges) ? g : undefined;
}

/** The engine's states of a run still going (graph_inspect's `status`). */
const LIVE_STATUSES = new Set(['not_started', 'running', 'paused']);
/** Executions one re-read asks for, and re-reads in a row at most (a view far behind catches up over polls). */
const PAGE = 1_000;
const PAGES = 5;

/** A later answer about the same run over what the view had: its state, and the executions appended by index. */
function merged(prev: Inspect | undefined, s: Inspect): Inspect {
  if (prev?.executionId !== s.executionId) return s;
  if (!s.history) return { ...prev, ...s, history: prev.history };
  const known = prev.history ?? [];
  const after = known.length ? known[known.length - 1]!.executionIndex : -1;
  return { ...prev, ...s, history: [...known, ...s.history.filter((e) => e.executionIndex > after)] };
}

function GraphRunApp() {
  const host = useHost();
  const [run, setRun] = useState<Inspect>();
  const [graph, setGraph] = useState<{ executionId: string; drawing: RunGraph }>();
  const [at, setAt] = useState<number>();
  const [point, setPoint] = useState<{ index: number; record?: Execution; context?: Record<string, unknown> }>();
  const [error, setError] = useState<string>();
  const seen = useRef(0);
  useEffect(() => {
    for (const r of host.results.slice(seen.current)) {
      if (r.error !== undefined) {
        setError(r.error);
        continue;
      }
      const s = r.structured as unknown as Inspect | undefined;
      if (!s?.executionId) continue;
      const drawing = runGraphOf(r.meta);
      if (drawing) setGraph({ executionId: s.executionId, drawing });
      setRun((prev) => merged(prev, s));
      if (s.executionIndex !== undefined) {
        setAt(s.executionIndex);
        setPoint({ index: s.executionIndex, record: s.record, context: s.context });
      }
    }
    seen.current = host.results.length;
  }, [host.results]);

  // Kept live while the run goes on: its resource's changes (polled through the host), each read from the newest
  // execution the view has on. A run seen going keeps its position on the newest until the person travels.
  const live = Boolean(run && LIVE_STATUSES.has(run.status ?? ''));
  const wasLive = useRef(false);
  if (live) wasLive.current = true;
  const runRef = useRef(run);
  runRef.current = run;
  const reading = useRef(false);
  const reread = useCallback(async () => {
    const id = runRef.current?.executionId;
    if (!id || reading.current) return;
    reading.current = true;
    try {
      for (let page = 0; page < PAGES; page++) {
        const known = runRef.current?.executionId === id ? runRef.current.history ?? [] : [];
        const offset = known.length ? known[known.length - 1]!.executionIndex + 1 : 0;
        const r: ToolResult = await callToolResult('graph_inspect', { executionId: id, offset, limit: PAGE });
        const s = r.structured as unknown as Inspect;
        const drawing = runGraphOf(r.meta);
        if (drawing) setGraph({ executionId: id, drawing });
        const next = merged(runRef.current, s);
        runRef.current = next;
        setRun(next);
        setError(undefined);
        if ((s.history?.length ?? 0) < PAGE) break;
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      reading.current = false;
    }
  }, []);
  useResourceChanges(live && run ? [`workgraph://graph/runs/${run.executionId}`] : [], reread, { rereadFirst: true });

  const history = run?.history ?? [];
  const travel = (index: number) => {
    if (!run) return;
    setAt(index);
    if (point?.index === index) return;
    callTool<Inspect>('graph_inspect', { executionId: run.executionId, executionIndex: index }).then(
      (v) => setPoint({ index, record: v.record, context: v.context }),
      (e: Error) => setError(e.message),
    );
  };
  // Not travelled: a run seen going follows its newest execution. Time travel steps through the executions the view
  // holds — every one finished (a node's execution joins the history when it ends) —, never past them: not to the
  // node running now, nor to executions counted but not yet read (past the page a result was handed with).
  const newest = history.length ? history[history.length - 1]!.executionIndex : undefined;
  const last = newest ?? 0;
  // The node a live run is running now: execution #executionCount, in progress (not in the history yet).
  const runningNow = live && run?.currentNodeId ? { nodeId: run.currentNodeId, index: run.executionCount ?? history.length } : undefined;
  const following = at === undefined && wasLive.current && newest !== undefined;
  const shownAt = at ?? (following ? newest : undefined);
  const current = point && point.index === shownAt ? point : undefined;
  const runError = typeof run?.error === 'string' ? run.error : run?.error?.message;
  const drawing = graph && graph.executionId === run?.executionId ? graph.drawing : undefined;
  // The node of the execution travelled to (the record read, else the history page's); following a live run or before
  // any, the node it is running now — highlighted as running, not as an execution to see.
  const highlightRunning = runningNow !== undefined && (following || shownAt === undefined);
  const atNode = highlightRunning ? runningNow.nodeId : (current?.record ?? history.find((e) => e.executionIndex === shownAt))?.nodeId ?? (shownAt === undefined ? run?.currentNodeId ?? undefined : undefined);
  // A click on a node travels to its next execution after the one shown (round again from its first).
  const travelToNode = (id: string) => {
    const of = history.filter((e) => e.nodeId === id);
    const next = of.find((e) => e.executionIndex > (shownAt ?? -1)) ?? of[0];
    if (next) travel(next.executionIndex);
  };
  const ran = drawing ? drawing.nodes.filter((n) => drawing.visits[n.id]).length : 0;
  const takenKeys = new Set(drawing?.traversals.map((t) => `${t.source}\u0000${t.target}`));
  const taken = drawing ? drawing.edges.filter((e) => takenKeys.has(`${e.source}\u0000${e.target}`)).length : 0;
  return (
    <ViewFrame title={run?.tool ? `Run of ${run.tool}` : 'Graph run'} subtitle={run?.executionId} error={host.error ?? error}>
      {!run ? (
        <div className="muted">{host.connected ? 'Waiting for the tool result…' : 'Connecting to the host…'}</div>
      ) : (
        <>
          <p className="small">
            <span className={`run-status ${run.status}`} data-testid="run-status">{run.status}</span> · {run.executionCount ?? history.length} node executions
          </p>
          {runError ? <div className="error" data-testid="run-error">{runError}</div> : null}
          <div className="view-travel" data-testid="time-travel">
            <button onClick={() => travel(Math.max(0, (shownAt ?? 0) - 1))} disabled={!shownAt} data-testid="travel-prev">‹ Previous</button>
            <input type="range" min={0} max={last} value={shownAt ?? 0} onChange={(e) => travel(Number(e.target.value))} aria-label="Node execution" data-testid="travel-slider" />
            <button onClick={() => travel(Math.min(last, (shownAt ?? -1) + 1))} disabled={newest === undefined || shownAt === last} data-testid="travel-next">Next ›</button>
            <span className="small muted" data-testid="travel-at">{shownAt === undefined ? 'pick an execution' : `#${shownAt} of ${last}${following ? ' (newest)' : ''}`}</span>
          </div>
          {runningNow ? (
            <p className="small" data-testid="run-now">
              Running now: <b>{runningNow.nodeId}</b> (#{runningNow.index}, in progress: it joins the timeline when it ends)
            </p>
          ) : null}
          {drawing ? (
            <>
              <p className="small muted" data-testid="run-path">
                The run's path: {ran} of {drawing.nodes.length} nodes ran, {taken} of {drawing.edges.length} edges taken{atNode ? <> · at <b>{atNode}</b></> : null}
              </p>
              <GraphDrawing nodes={drawing.nodes} edges={drawing.edges} path={drawing} highlight={atNode} highlightClass={highlightRunning ? 'running-at' : undefined} onSelect={travelToNode} />
            </>
          ) : null}
          <div className="run-layout">
            <div>
              <h2>Timeline</h2>
              <Timeline executions={history} live={live} selected={shownAt} onSelect={travel} />
              {run.result !== undefined ? (<><h3>Result</h3><Json value={run.result} /></>) : null}
            </div>
            {current?.record ? (
              <aside className="exec-panel" data-testid="execution">
                <h2>#{current.record.executionIndex} {current.record.nodeId} <span className="node-type">{current.record.nodeType}</span></h2>
                <div className="muted small">{current.record.duration} ms</div>
                {current.record.error ? <div className="error">{current.record.error.message}</div> : null}
                <h3>Output</h3>
                <Json value={current.record.output} />
                <h3>Context it saw</h3>
                <Json value={current.context} />
              </aside>
            ) : shownAt !== undefined ? <div className="muted">Reading #{shownAt}…</div> : <div className="muted">Travel to a node execution to see its output and the context it saw.</div>}
          </div>
        </>
      )}
    </ViewFrame>
  );
}

createRoot(document.getElementById('root')!).render(<GraphRunApp />);
