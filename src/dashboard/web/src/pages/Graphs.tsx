import { useMemo, useState } from 'react';
import { useApi } from '../api';
import { useMeta } from '../meta';
import { href } from '../router';
import { Empty, Json, Load, Time, actorText } from '../components/common';
import { GraphDrawing, type DrawnEdge, type DrawnNode, type DrawnPath } from '../components/GraphDrawing';
import type { RunSummary } from '../types';
import type { JsonSchema } from '../components/ArgsForm';
import { GraphWorkbench } from './GraphWorkbench';

interface ToolSummary {
  name: string;
  description?: string;
  file: string;
  nodeCount: number;
  loaded: boolean;
  runs: number;
}
interface ToolDetail extends ToolSummary {
  inputSchema?: JsonSchema;
  nodes: DrawnNode[];
  edges: DrawnEdge[];
  recentRuns: RunSummary[];
}
export interface Execution {
  executionIndex: number;
  nodeId: string;
  nodeType: string;
  startTime: number;
  endTime: number;
  duration: number;
  output?: unknown;
  error?: { message: string; code?: string; stderrTail?: string; [k: string]: unknown };
}
interface RunRecord extends RunSummary {
  executionId: string;
  file?: string;
  endedAt: string;
  input: unknown;
  result?: unknown;
  executions: Execution[];
  truncated?: boolean;
  /** How a failed run ended: the failing node and, for an `mcp` node, the MCP server's stderr tail. */
  runError?: { code: string; message: string; nodeId?: string; stderrTail?: string };
  /** A run still going (status running/paused): the node it is at. */
  currentNode?: string;
  /** A draft's run whose definition was too large to keep: why it is not drawn. */
  draftOmitted?: string;
  /** The path it took over its recorded executions: how often each node ran, the edges taken (marked on the drawing). */
  path?: DrawnPath;
}
interface ExecutionView {
  execution: Execution;
  input: unknown;
  context: Record<string, unknown>;
}

const runRelevant = (tool?: string) => (e: { kind: string; id?: string; project?: string }) => e.kind === 'graph' || (e.kind === 'graph-run' && (!tool || e.project === tool));

export function GraphTools() {
  const res = useApi<{ tools: ToolSummary[]; runs: RunSummary[] }>('/graphs', runRelevant());
  return (
    <Load res={res}>
      {(d) => (
        <div className="page">
          <h1>Graph tools</h1>
          {d.tools.length === 0 ? (
            <Empty>No graph tools. Start the dashboard with <code>--graphs PATH</code> (or WORKGRAPH_GRAPHS_PATH) to draw them.</Empty>
          ) : (
            <table className="table" data-testid="graph-tools">
              <thead><tr><th>Tool</th><th>File</th><th>Nodes</th><th>Recorded runs</th></tr></thead>
              <tbody>
                {d.tools.map((t) => (
                  <tr key={t.name}>
                    <td><a className="strong" href={href('graphs', t.name)}>{t.name}</a><div className="muted small">{t.description}</div></td>
                    <td className="small"><code>{t.file}</code>{t.loaded ? null : <span className="pill">from a recorded run</span>}</td>
                    <td className="num">{t.nodeCount}</td>
                    <td className="num">{t.runs}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Recent runs</h2>
          <RunList runs={d.runs} />
        </div>
      )}
    </Load>
  );
}

function RunList({ runs }: { runs: RunSummary[] }) {
  if (runs.length === 0) return <Empty>No recorded runs yet.</Empty>;
  return (
    <table className="table" data-testid="runs">
      <thead><tr><th>Run</th><th>Tool</th><th>Status</th><th>Started</th><th>By</th><th>Duration</th><th>Node executions</th></tr></thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.runId}>
            <td><a href={href('runs', r.runId)}><code>{r.runId.slice(0, 18)}</code></a></td>
            <td>{r.tool}{r.draft ? <> <span className="pill" data-testid="run-draft-tag" title="a run of a definition not saved">draft</span></> : null}</td>
            <td><span className={`run-status ${r.status}`}>{r.status}</span>{r.error ? <div className="error small">{r.error}</div> : null}</td>
            <td><Time iso={r.startedAt} /></td>
            <td data-testid="run-by">{actorText(r.actor) ?? <span className="muted">—</span>}</td>
            <td className="num">{r.durationMs} ms</td>
            <td className="num">{r.nodeExecutions}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function GraphToolPage({ tool, debugRun }: { tool: string; debugRun?: string }) {
  const res = useApi<ToolDetail>(`/graphs/${encodeURIComponent(tool)}`, runRelevant(tool));
  const meta = useMeta();
  return (
    <Load res={res}>
      {(t) => (
        <div className="page">
          <h1>{t.name}</h1>
          <p className="muted">{t.description} <code className="small">{t.file}</code></p>
          {meta?.allowActions && t.loaded ? <GraphWorkbench tool={t} attach={debugRun} /> : <GraphDrawing nodes={t.nodes} edges={t.edges} />}
          <h2>Recorded runs</h2>
          <RunList runs={t.recentRuns} />
        </div>
      )}
    </Load>
  );
}

const LIVE = new Set(['running', 'paused']);

/**
 * One run: drawn over its tool's graph, its timeline and each execution's input, output and context. A run still
 * going (its live record, saved by the server that runs it) is redrawn on every change the live stream tells of: the
 * current node highlighted, the newest executions in the timeline; a finished run keeps its time travel.
 */
export function GraphRunPage({ runId }: { runId: string }) {
  const res = useApi<RunRecord>(`/runs/${encodeURIComponent(runId)}`, (e) => e.kind === 'graph-run' && e.id === runId);
  const [selected, setSelected] = useState<number>();
  return (
    <Load res={res}>
      {(r) => {
        const live = LIVE.has(r.status);
        const selectedNode = selected !== undefined ? r.executions.find((e) => e.executionIndex === selected)?.nodeId : undefined;
        // Clicking a node shows its latest execution.
        const selectNode = (id: string) => {
          const last = [...r.executions].reverse().find((e) => e.nodeId === id);
          if (last) setSelected(last.executionIndex);
        };
        return (
          <div className="page">
            <h1>
              Run of <a href={href('graphs', r.tool)}>{r.tool}</a> <span className={`run-status ${r.status}`} data-testid="run-status">{r.status}</span>
              {r.draft ? <> <span className="pill" data-testid="run-draft">draft, not saved</span></> : null}
            </h1>
            <p className="muted small">
              <code>{r.runId}</code> · started <Time iso={r.startedAt} />
              {actorText(r.actor) ? <> · run by <span data-testid="run-actor">{actorText(r.actor)}</span></> : null} · {r.durationMs} ms · <span data-testid="run-executions">{r.nodeExecutions}</span> node executions
              {r.truncated ? ' · only the last executions were recorded' : ''}
              {live && r.currentNode ? <> · {r.status === 'paused' ? 'paused before' : 'at'} <b data-testid="run-current">{r.currentNode}</b> (live)</> : null}
            </p>
            {live ? <DebugRunLink runId={r.runId} tool={r.tool} /> : null}
            {r.error ? (
              <div className="error" data-testid="run-error">
                {r.error}
                {r.runError?.stderrTail ? (<><div className="small muted">MCP server stderr (tail)</div><pre className="code">{r.runError.stderrTail}</pre></>) : null}
              </div>
            ) : null}
            {r.draftOmitted ? <p className="muted small" data-testid="run-draft-omitted">A draft's run, not drawn: {r.draftOmitted}.</p> : null}
            <RunDrawing tool={r.tool} runId={r.runId} path={r.path} highlight={live ? r.currentNode : selectedNode} onSelect={selectNode} />
            <div className="run-layout">
              <div>
                <h2>Timeline</h2>
                <Timeline executions={r.executions} live={live} selected={selected} onSelect={setSelected} />
                <h3>Input</h3>
                <Json value={r.input} />
                <h3>Result</h3>
                {live ? <div className="muted">Still running.</div> : <Json value={r.result} />}
              </div>
              {selected !== undefined ? <ExecutionPanel key={`${selected}:${live}`} runId={r.runId} index={selected} runError={r.runError} /> : <div className="muted">Select a node execution (or a node of the drawing) to see its input, output and the context it saw.</div>}
            </div>
          </div>
        );
      }}
    </Load>
  );
}

/** A live run this dashboard's process holds as a debug run (and the caller may drive): a link to its controls. */
function DebugRunLink({ runId, tool }: { runId: string; tool: string }) {
  const meta = useMeta();
  const res = useApi<{ status: string }>(meta?.allowActions ? `/debug/${encodeURIComponent(runId)}` : null);
  if (!res.data) return null;
  return (
    <div className="notice" data-testid="debug-run-link">
      A debug run of this dashboard: <a href={`${href('graphs', tool)}/debug/${encodeURIComponent(runId)}`}>drive it on the tool's page</a> (step, resume, stop, breakpoints).
    </div>
  );
}

/**
 * The run's tool drawn, when the dashboard knows it: as the run ran it (a draft's run keeps its definition), else a
 * loaded graph file, or the file a recorded run names. The run's path is marked on it (the nodes run and how often,
 * the edges taken, the rest dimmed); a live run's grows with every change its record tells of.
 */
function RunDrawing({ tool, runId, path, highlight, onSelect }: { tool: string; runId: string; path?: DrawnPath; highlight?: string; onSelect: (id: string) => void }) {
  const res = useApi<ToolDetail>(`/graphs/${encodeURIComponent(tool)}?run=${encodeURIComponent(runId)}`);
  if (!res.data || res.data.nodes.length === 0) return null;
  return <GraphDrawing nodes={res.data.nodes} edges={res.data.edges} path={path} highlight={highlight} onSelect={onSelect} />;
}

const SHOWN_EXECUTIONS = 500;

/** A run's node executions on one time axis (500 of them: a live run's newest, else the first), each a button that selects it. */
export function Timeline({ executions, live = false, selected, onSelect }: { executions: Execution[]; live?: boolean; selected?: number; onSelect: (i: number) => void }) {
  const start = executions[0]?.startTime ?? 0;
  const end = Math.max(start + 1, ...executions.map((e) => e.endTime));
  const span = end - start;
  const shown = useMemo(() => (live ? executions.slice(-SHOWN_EXECUTIONS) : executions.slice(0, SHOWN_EXECUTIONS)), [executions, live]);
  const more = executions.length - shown.length;
  return (
    <ol className="exec-timeline" data-testid="timeline">
      {live && more > 0 ? <li className="muted small">… {more} earlier</li> : null}
      {shown.map((e) => (
        <li key={e.executionIndex}>
          <button className={`exec${selected === e.executionIndex ? ' selected' : ''}${e.error ? ' failed' : ''}`} onClick={() => onSelect(e.executionIndex)} data-exec={e.executionIndex}>
            <span className="exec-label" title={`#${e.executionIndex} ${e.nodeId} (${e.nodeType})`}>
              <span className="exec-index">#{e.executionIndex}</span> <b>{e.nodeId}</b> <span className="node-type">{e.nodeType}</span>
            </span>
            <span className="exec-bar-track">
              <span className="exec-bar" style={{ left: `${((e.startTime - start) / span) * 100}%`, width: `${Math.max(0.5, (e.duration / span) * 100)}%` }} />
            </span>
            <span className="exec-ms">{e.duration} ms{e.error ? ' · error' : ''}</span>
          </button>
        </li>
      ))}
      {!live && more > 0 ? <li className="muted small">… {more} more</li> : null}
    </ol>
  );
}

function ExecutionPanel({ runId, index, runError }: { runId: string; index: number; runError?: RunRecord['runError'] }) {
  const res = useApi<ExecutionView>(`/runs/${encodeURIComponent(runId)}/executions/${index}`);
  // The run's error keeps the stderr tail of the node it failed on; the execution record may not carry it itself.
  const tailOf = (e: Execution) => e.error?.stderrTail ?? (runError?.nodeId === e.nodeId ? runError?.stderrTail : undefined);
  return (
    <aside className="exec-panel" data-testid="execution">
      <Load res={res}>
        {(v) => (
          <>
            <h2>
              #{v.execution.executionIndex} {v.execution.nodeId} <span className="node-type">{v.execution.nodeType}</span>
            </h2>
            <div className="muted small">{v.execution.duration} ms</div>
            {v.execution.error ? (
              <>
                <h3>Error</h3>
                <div className="error">{v.execution.error.message}</div>
                {tailOf(v.execution) ? (<><div className="small muted">MCP server stderr (tail)</div><pre className="code">{tailOf(v.execution)}</pre></>) : null}
              </>
            ) : null}
            <h3>Input</h3>
            <Json value={v.input} />
            <h3>Output</h3>
            <Json value={v.execution.output} />
            <h3>Context it saw</h3>
            <Json value={v.context} />
          </>
        )}
      </Load>
    </aside>
  );
}
