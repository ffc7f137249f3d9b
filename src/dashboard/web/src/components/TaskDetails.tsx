import { useState } from 'react';
import { StatusBadge } from './StatusBadge';
import { Load, Time } from './common';
import { ClaimRows, PlanHistory, TransitionList } from './PlanViews';
import { useTaskSource, type TaskAction } from './task-source';
import type { TaskNode } from '../types';

/** The selected task's panel beside the DAG: its fields, claim, validation command, failed runs with output tails. */
export function TaskDetails({ project, node, revision, onClose }: { project: string; node: TaskNode; revision: number; onClose: () => void }) {
  const source = useTaskSource();
  const res = source.useDetails(project, node.id, revision);
  const [actionError, setActionError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = (action: TaskAction, agent?: string) => async () => {
    setBusy(true);
    setActionError(undefined);
    try {
      await action(project, node.id, agent);
    } catch (e) {
      setActionError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const canRelease = source.release && node.claim && node.status === 'IN_PROGRESS';
  return (
    <aside className="details" data-testid="task-details">
      <div className="details-head">
        <h2>{node.title}</h2>
        <button className="close" onClick={onClose} aria-label="Close details">×</button>
      </div>
      <div className="kv">
        <span>Id</span><code>{node.id}</code>
        <span>Status</span><span><StatusBadge status={node.status} /></span>
        <span>Priority</span><span data-testid="task-priority" className={`priority priority-${node.priority ?? 'medium'}`}>{node.priority ?? 'medium'}</span>
        <span>Tags</span>
        <span data-testid="task-tags">{node.tags?.length ? node.tags.map((t) => <span key={t} className="tag">{t}</span>) : <span className="muted">—</span>}</span>
        <ClaimRows claim={node.claim} />
        <span>Attempts</span><span>{node.current_attempt} of {node.max_attempts}</span>
        <span>Depends on</span><span>{node.depends_on.length ? node.depends_on.join(', ') : '—'}</span>
        <span>Updated</span><Time iso={node.updated_at} />
        {node.metadata && Object.keys(node.metadata).length ? (
          <>
            <span>Metadata</span>
            <span className="small">{Object.entries(node.metadata).map(([k, v]) => <div key={k}><span className="muted">{k}:</span> {String(v)}</div>)}</span>
          </>
        ) : null}
      </div>
      {node.description ? <p className="description">{node.description}</p> : null}
      <h3>Validation command</h3>
      {node.validation_command ? <pre className="code">{node.validation_command}</pre> : <div className="muted">None: the task completes without a check.</div>}
      {source.reset || canRelease ? (
        <div className="actions">
          {source.reset ? <button onClick={run(source.reset)} disabled={busy} data-testid="reset-task">Reset task</button> : null}
          {canRelease ? <button onClick={run(source.release!, node.claim?.agent ?? undefined)} disabled={busy} data-testid="release-task">Release claim</button> : null}
          {actionError ? <div className="error" role="alert">{actionError}</div> : null}
        </div>
      ) : null}
      <h3>Failed attempts</h3>
      {node.error_logs.length === 0 ? (
        <div className="muted">None.</div>
      ) : (
        node.error_logs.map((log, i) => (
          <details key={i} className="attempt" open={i === node.error_logs.length - 1}>
            <summary>
              Attempt {log.attempt}: {log.timed_out ? 'timed out' : log.signal ? `signal ${log.signal}` : `exit code ${log.exit_code}`} ·{' '}
              {log.duration_ms} ms · <Time iso={log.time} />
            </summary>
            {log.stdout_tail ? (<><div className="small muted">stdout (tail)</div><pre className="code">{log.stdout_tail}</pre></>) : null}
            {log.stderr_tail ? (<><div className="small muted">stderr (tail)</div><pre className="code">{log.stderr_tail}</pre></>) : null}
            {!log.stdout_tail && !log.stderr_tail ? <div className="muted small" data-testid="no-output">(no output)</div> : null}
          </details>
        ))
      )}
      <h3>History of changes</h3>
      <Load res={res}>{(d) => <PlanHistory changes={d.history ?? []} testId="task-history" />}</Load>
      <h3>Transitions</h3>
      <Load res={res}>{(d) => <TransitionList transitions={d.transitions} />}</Load>
    </aside>
  );
}
