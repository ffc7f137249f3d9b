import { useCallback, useEffect, useRef, useState } from 'react';
import { api, onChange } from '../api';
import { href } from '../router';
import { Json } from '../components/common';
import { useArgsForm, type JsonSchema } from '../components/ArgsForm';
import { DEBUG_LIVE, DebugPanel, type DebugAction, type DebugRunView } from '../components/DebugPanel';
import { GraphDrawing, type DrawnEdge, type DrawnNode } from '../components/GraphDrawing';

export interface WorkbenchTool {
  name: string;
  inputSchema?: JsonSchema;
  nodes: DrawnNode[];
  edges: DrawnEdge[];
}

const path = (runId: string) => `/debug/${encodeURIComponent(runId)}`;

/**
 * A served graph tool's page with --allow-actions: its drawing, the form that runs it (to its end, or under the
 * debugger) and the debugger's panel. Breakpoints are set by clicking nodes of the drawing — before a debug run starts
 * (it starts with them) or while it goes on (sent to the run). The run's view is read again on each of its change
 * events (its live record is saved every 250 ms while it goes on) and after each control.
 */
export function GraphWorkbench({ tool, attach }: { tool: WorkbenchTool; attach?: string }) {
  const [breakpoints, setBreakpoints] = useState<string[]>([]);
  const [view, setView] = useState<DebugRunView>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const runId = view?.runId;
  const live = view !== undefined && DEBUG_LIVE.has(view.status);

  const refresh = useCallback(async () => {
    if (!runId) return;
    try {
      setView(await api<DebugRunView>(path(runId)));
    } catch (e) {
      setError((e as Error).message);
    }
  }, [runId]);

  // Opened at `#/graphs/<tool>/debug/<run>` (a reload, a link from the run's page): that debug run again.
  useEffect(() => {
    if (!attach) return;
    let alive = true;
    api<DebugRunView>(path(attach))
      .then((v) => {
        if (!alive) return;
        setView(v);
        setBreakpoints(v.breakpoints);
      })
      .catch((e: Error) => alive && setError(e.message));
    return () => {
      alive = false;
    };
  }, [attach]);

  // While the run goes on, each of its change events re-reads it (debounced: a burst costs one request).
  const liveRef = useRef(live);
  liveRef.current = live;
  useEffect(() => {
    if (!runId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onChange((e) => {
      if (e.kind !== 'graph-run' || e.id !== runId || !liveRef.current || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void refresh();
      }, 100);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [runId, refresh]);

  const start = async (args: Record<string, unknown>, startPaused: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const v = await api<DebugRunView>(`/graphs/${encodeURIComponent(tool.name)}/debug`, { method: 'POST', body: { args, breakpoints, startPaused } });
      setView(v);
      // The page's URL names the run (replaced, not a navigation): a reload comes back to it.
      window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${href('graphs', tool.name)}/debug/${encodeURIComponent(v.runId)}`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const control = async (action: DebugAction) => {
    if (!runId) return;
    setBusy(true);
    setError(undefined);
    try {
      setView(await api<DebugRunView>(`${path(runId)}/${action}`, { method: 'POST', body: {} }));
    } catch (e) {
      setError((e as Error).message);
      void refresh();
    } finally {
      setBusy(false);
    }
  };

  const toggle = async (nodeId: string) => {
    const next = breakpoints.includes(nodeId) ? breakpoints.filter((b) => b !== nodeId) : [...breakpoints, nodeId];
    setBreakpoints(next);
    if (!runId || !live) return;
    setError(undefined);
    try {
      const v = await api<DebugRunView>(`${path(runId)}/breakpoints`, { method: 'POST', body: { nodeIds: next } });
      setView(v);
      setBreakpoints(v.breakpoints);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <>
      <GraphDrawing nodes={tool.nodes} edges={tool.edges} highlight={live ? view?.currentNode ?? undefined : undefined} highlightClass={view?.status === 'paused' ? 'paused-at' : undefined} marked={new Set(breakpoints)} onSelect={(id) => void toggle(id)} selectable={false} />
      <p className="muted small hint">Click a node to set or clear a breakpoint ({breakpoints.length ? <>set on {breakpoints.map((b) => <code key={b} className="bp-chip" data-testid="breakpoint">{b}</code>)}</> : 'none set'}).</p>
      <div className="workbench">
        <RunForm tool={tool.name} schema={tool.inputSchema} debugging={live} busy={busy} onDebug={start} />
        {view ? (
          <DebugPanel view={view} node={tool.nodes.find((n) => n.id === view.currentNode)} busy={busy} error={error} onAction={(a) => void control(a)} />
        ) : (
          <section className="card debug-panel debug-idle" aria-label="Debugger">
            <h2>Debugger</h2>
            <p className="muted">Click nodes in the drawing to set breakpoints, then <b>Debug</b>: the run holds before each breakpoint (or, with <i>pause at the entry node</i>, before its first node). While it holds you see the context and history the node is about to read, and step it one node at a time, resume or stop it. The run is recorded like any other.</p>
            {error ? <div className="error" role="alert" data-testid="debug-error">{error}</div> : null}
          </section>
        )}
      </div>
    </>
  );
}

/**
 * The tool's arguments (a form from its input schema, or JSON) and two ways to run it: Run (to its end, answered with
 * the result) and Debug (a debug run with the breakpoints set, optionally held before its entry node).
 */
function RunForm({ tool, schema, debugging, busy: debugBusy, onDebug }: { tool: string; schema?: JsonSchema; debugging: boolean; busy: boolean; onDebug: (args: Record<string, unknown>, startPaused: boolean) => Promise<void> }) {
  const args = useArgsForm(schema);
  const [result, setResult] = useState<{ runId?: string; output?: unknown; error?: string }>();
  const [busy, setBusy] = useState(false);
  const [startPaused, setStartPaused] = useState(false);
  const read = (): Record<string, unknown> | undefined => {
    try {
      return args.read();
    } catch (err) {
      setResult({ error: (err as Error).message });
      return undefined;
    }
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const a = read();
    if (!a) return;
    setBusy(true);
    try {
      setResult(await api<{ runId: string; output: unknown }>(`/graphs/${encodeURIComponent(tool)}/run`, { method: 'POST', body: { args: a } }));
    } catch (err) {
      setResult({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  const debug = () => {
    const a = read();
    if (!a) return;
    setResult(undefined);
    void onDebug(a, startPaused);
  };
  return (
    <form className="card run-form" onSubmit={submit} data-testid="run-form">
      <h2>Run {tool}</h2>
      {args.view}
      <div className="run-buttons">
        <button type="submit" disabled={busy}>{busy ? 'Running…' : 'Run'}</button>
        <button type="button" className="primary" disabled={debugBusy || debugging} title={debugging ? 'a debug run is going on: stop it first' : 'run under the debugger, holding at the breakpoints'} onClick={debug}>
          Debug
        </button>
        <label className="check small"><input type="checkbox" checked={startPaused} onChange={(e) => setStartPaused(e.target.checked)} /> pause at the entry node</label>
      </div>
      {result?.error ? <div className="error" role="alert">{result.error}</div> : null}
      {result?.runId ? (
        <div>Run <a href={href('runs', result.runId)}>{result.runId}</a> finished. <Json value={result.output} /></div>
      ) : null}
    </form>
  );
}
