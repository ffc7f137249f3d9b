import { href } from '../router';
import { Json } from './common';
import type { DrawnNode } from './GraphDrawing';

/** A debug run as `/api/debug/:run` answers it (docs/dashboard.md "Debugger"). */
export interface DebugRunView {
  runId: string;
  tool: string;
  status: 'not_started' | 'running' | 'paused' | 'finished' | 'error' | 'stopped';
  currentNode: string | null;
  executionCount: number;
  breakpoints: string[];
  startTime: number;
  endTime?: number;
  context: Record<string, unknown>;
  history: Array<{ executionIndex: number; nodeId: string; nodeType: string; duration: number; output?: unknown; error?: { code: string; message: string } }>;
  historyTotal: number;
  result?: unknown;
  error?: { code: string; message: string };
  idleStopAt?: number;
}

export type DebugAction = 'pause' | 'step' | 'resume' | 'stop';

export const DEBUG_LIVE = new Set<DebugRunView['status']>(['not_started', 'running', 'paused']);

/** What each control may do in each status (the server refuses the same: 409 invalid_transition). */
const ENABLED: Record<DebugAction, ReadonlySet<DebugRunView['status']>> = {
  pause: new Set(['not_started', 'running']),
  step: new Set(['paused']),
  resume: new Set(['paused']),
  stop: new Set(['not_started', 'running', 'paused']),
};

const LABEL: Record<DebugAction, string> = { pause: 'Pause', step: 'Step', resume: 'Resume', stop: 'Stop' };
const HINT: Record<DebugAction, string> = {
  pause: 'hold the run before its next node',
  step: 'run exactly one node, then hold again',
  resume: 'go on to the next breakpoint or the end',
  stop: 'end the run (recorded as stopped)',
};

function statusText(v: DebugRunView): string {
  switch (v.status) {
    case 'not_started':
      return 'Starting';
    case 'running':
      return v.currentNode ? `Running at ${v.currentNode}` : 'Running';
    case 'paused':
      return `Paused before ${v.currentNode}`;
    case 'finished':
      return 'Finished';
    case 'stopped':
      return 'Stopped';
    case 'error':
      return 'Failed';
  }
}

const STATUS_CLASS: Record<DebugRunView['status'], string> = {
  not_started: 'running',
  running: 'running',
  paused: 'paused',
  finished: 'completed',
  stopped: 'stopped',
  error: 'failed',
};

/**
 * The debugger's panel on a graph tool's page: where the run is (status, the node it holds before), the controls —
 * each enabled only where the run's status allows it —, the last error in one line, and while paused what the node
 * about to run reads: the context (`$`) and the newest history its history functions see.
 */
export function DebugPanel({ view, node, busy, error, onAction }: { view: DebugRunView; node?: DrawnNode; busy: boolean; error?: string; onAction: (a: DebugAction) => void }) {
  const paused = view.status === 'paused';
  const shown = [...view.history].reverse();
  return (
    <section className="card debug-panel" data-testid="debug-panel" aria-label="Debugger">
      <div className="debug-head">
        <h2>Debugger</h2>
        <span className={`run-status ${STATUS_CLASS[view.status]}`} data-testid="debug-status" data-status={view.status}>{view.status}</span>
        <span className="debug-status-text" data-testid="debug-status-text">
          {paused ? <>Paused before <b data-testid="debug-current">{view.currentNode}</b></> : view.status === 'running' && view.currentNode ? <>Running at <b data-testid="debug-current">{view.currentNode}</b></> : statusText(view)}
        </span>
        <span className="muted small">
          · <span data-testid="debug-executions">{view.executionCount}</span> node execution{view.executionCount === 1 ? '' : 's'} · run <a href={href('runs', view.runId)}><code>{view.runId.slice(0, 18)}</code></a>
        </span>
      </div>
      <div className="debug-controls" role="toolbar" aria-label="Debugger controls">
        {(Object.keys(LABEL) as DebugAction[]).map((a) => (
          <button key={a} type="button" className={`debug-${a}`} disabled={busy || !ENABLED[a].has(view.status)} title={HINT[a]} onClick={() => onAction(a)}>
            {LABEL[a]}
          </button>
        ))}
        <span className="muted small">
          {view.breakpoints.length ? <>Breakpoints: {view.breakpoints.map((b) => <code key={b} className="bp-chip">{b}</code>)}</> : 'No breakpoints'} — click a node in the drawing to set or clear one
        </span>
      </div>
      {error ? <div className="error" role="alert" data-testid="debug-error">{error}</div> : null}
      {view.error && view.status !== 'stopped' ? <div className="error" data-testid="debug-run-error">{view.error.message}</div> : null}
      {paused && view.idleStopAt ? <div className="muted small">Left paused, the run is stopped at {new Date(view.idleStopAt).toLocaleTimeString()} (15 minutes without a step, resume or breakpoint change).</div> : null}
      {paused ? (
        <div className="debug-layout">
          <div>
            <h3>Context <span className="muted small">what {view.currentNode}'s expressions read as <code>$</code></span></h3>
            {node?.detail ? <div className="small">About to run <code>{node.id}</code> <span className="node-type">{node.type}</span> <code className="debug-detail">{node.detail}</code></div> : null}
            <div data-testid="debug-context"><Json value={view.context} /></div>
          </div>
          <div>
            <h3>History <span className="muted small">newest first{view.historyTotal > view.history.length ? `, the last ${view.history.length} of ${view.historyTotal}` : ''}; read by <code>$previousNode()</code>, <code>$executionCount()</code> …</span></h3>
            {shown.length === 0 ? (
              <div className="muted">Nothing has run yet.</div>
            ) : (
              <ol className="debug-history" data-testid="debug-history">
                {shown.map((h) => (
                  <li key={h.executionIndex}>
                    <span className="exec-index">#{h.executionIndex}</span> <b>{h.nodeId}</b> <span className="node-type">{h.nodeType}</span>{' '}
                    <code className={`debug-output${h.error ? ' error-text' : ''}`} title={h.error ? h.error.message : JSON.stringify(h.output)}>{h.error ? h.error.message : JSON.stringify(h.output)}</code>
                  </li>
                ))}
              </ol>
            )}
          </div>
        </div>
      ) : null}
      {view.status === 'finished' ? (
        <div data-testid="debug-result">
          <h3>Result</h3>
          <Json value={view.result} />
        </div>
      ) : null}
      {!DEBUG_LIVE.has(view.status) ? <div className="muted small">The run is recorded: <a href={href('runs', view.runId)}>open it</a> for its timeline and time travel.</div> : null}
    </section>
  );
}
