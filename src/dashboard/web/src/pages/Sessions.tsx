import { useState } from 'react';
import { useApi } from '../api';
import { href } from '../router';
import { Empty, Json, Load, Time } from '../components/common';
import { Markdown } from '../components/Markdown';
import type { SessionProgress, SessionSummary } from '../types';

interface SessionStep {
  id: string;
  title: string;
  state: 'done' | 'current' | 'pending' | 'skipped';
  notes: Array<{ markdown: string; label?: string }>;
  artifacts: unknown[];
}
interface Branch {
  tip: number;
  head: boolean;
  label: string;
  forkedAfter?: string;
  steps: SessionStep[];
  completed: number;
}
interface TimelineEntry {
  at: string;
  kind: 'step' | 'checkpoint' | 'fork' | 'blocked' | 'created';
  label: string;
  ref?: string;
}
interface SessionDetail extends SessionSummary {
  createdAt: string;
  steps: SessionStep[];
  branches: Branch[];
  currentPrompt?: string;
  summary?: string;
  blocked: Array<{ at: string; stepId: string; issues: string[] }>;
  timeline: TimelineEntry[];
  context?: unknown;
}

export function Sessions() {
  const res = useApi<{ available: boolean; sessions: SessionSummary[] }>('/sessions', (e) => e.kind === 'session');
  return (
    <Load res={res}>
      {(d) => (
        <div className="page">
          <h1>Workflow sessions</h1>
          {!d.available ? (
            <Empty>This data dir's server version records no workflow sessions.</Empty>
          ) : d.sessions.length === 0 ? (
            <Empty>No workflow sessions yet.</Empty>
          ) : (
            <table className="table" data-testid="sessions">
              <thead><tr><th>Session</th><th>Workflow</th><th>Status</th><th>Progress</th><th>Updated</th></tr></thead>
              <tbody>
                {d.sessions.map((s) => (
                  <tr key={s.id}>
                    <td><a href={href('sessions', s.id)}><code>{s.id}</code></a></td>
                    <td>{s.workflowName ?? s.workflowId}</td>
                    <td><span className={`run-status ${s.status}`}>{s.status}</span></td>
                    <td data-testid="session-progress">{s.progress ? <ProgressText p={s.progress} /> : '—'}{s.currentStep ? <div className="muted small">at {s.currentStep}</div> : null}</td>
                    <td><Time iso={s.updatedAt} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </Load>
  );
}

/** "5 of 6 steps", the same words wherever a session's progress is shown. */
export function ProgressText({ p }: { p: SessionProgress }) {
  return (
    <span className="progress-text">
      {p.done} of {p.total} steps{p.skipped ? <span className="muted"> ({p.skipped} skipped)</span> : null}
    </span>
  );
}

export function SessionPage({ id }: { id: string }) {
  const res = useApi<SessionDetail>(`/sessions/${encodeURIComponent(id)}`, (e) => e.kind === 'session' && (!e.id || e.id === id));
  const [tip, setTip] = useState<number>();
  return (
    <Load res={res}>
      {(s) => {
        const branch = s.branches.find((b) => b.tip === tip) ?? s.branches.find((b) => b.head);
        const steps = branch?.steps ?? s.steps;
        const onHead = !branch || branch.head;
        return (
          <div className="page">
            <p><a href={href('sessions')}>‹ Sessions</a></p>
            <h1>{s.workflowName ?? s.workflowId} <span className={`run-status ${s.status}`}>{s.status}</span></h1>
            <p className="muted small"><code>{s.id}</code> · started <Time iso={s.createdAt} /> · updated <Time iso={s.updatedAt} /></p>
            {s.progress ? (
              <div className="progress" aria-label="progress" data-testid="progress">
                <div style={{ width: `${(100 * s.progress.done) / Math.max(1, s.progress.total)}%` }} />
                <ProgressText p={s.progress} />
              </div>
            ) : null}
            {s.summary ? (
              <section className="summary" data-testid="session-summary">
                <h2>Summary</h2>
                <Markdown text={s.summary} />
              </section>
            ) : null}
            <div className="session-layout">
              <section>
                <h2>Steps</h2>
                {s.branches.length > 1 ? (
                  <div className="branches" data-testid="branches" role="group" aria-label="Branches">
                    <span className="muted small">This session forked: {s.branches.length} branches.</span>
                    {s.branches.map((b) => (
                      <button key={b.tip} className={b === branch ? 'active' : ''} aria-pressed={b === branch} data-branch={b.tip} data-head={b.head ? 'true' : undefined} onClick={() => setTip(b.tip)}>
                        {b.head ? 'Head branch' : `Branch ${b.label}`} <span className="muted small">· {b.completed} done{b.forkedAfter ? ` · parted after ${b.forkedAfter}` : ''}</span>
                      </button>
                    ))}
                  </div>
                ) : null}
                {!onHead ? <div className="notice small" data-testid="branch-notice">Showing a branch the session left (it goes on on the head branch). Its steps and notes are as that branch left them.</div> : null}
                <ol className="steps" data-testid="steps">
                  {steps.map((st) => (
                    <li key={st.id} className={`step ${st.state}`} data-step={st.id} data-state={st.state}>
                      <div><span className="step-state">{st.state}</span> <b>{st.title}</b> <code className="small">{st.id}</code></div>
                      {st.notes.map((n, i) => (
                        <div key={i} className="note">
                          {n.label ? <div className="note-label muted small">{n.label}</div> : null}
                          <Markdown text={n.markdown} />
                        </div>
                      ))}
                      {st.artifacts.length ? <Json value={st.artifacts} /> : null}
                    </li>
                  ))}
                </ol>
                {s.currentPrompt && onHead ? (<><h2>Current prompt</h2><pre className="thought">{s.currentPrompt}</pre></>) : null}
                {s.blocked.length ? (
                  <>
                    <h2>Blocked attempts</h2>
                    <ul className="list">
                      {s.blocked.map((b, i) => (
                        <li key={i}><b>{b.stepId}</b> · <Time iso={b.at} /><ul>{b.issues.map((x, j) => <li key={j} className="error small">{x}</li>)}</ul></li>
                      ))}
                    </ul>
                  </>
                ) : null}
              </section>
              <section>
                <h2>Timeline</h2>
                {s.timeline.length === 0 ? <Empty>Nothing yet.</Empty> : (
                  <ol className="timeline" data-testid="session-timeline">
                    {s.timeline.map((t, i) => (
                      <li key={i} className={`tl-${t.kind}`}>
                        <span className="tl-kind">{t.kind}</span> {t.ref ? <a href={href('sessions', t.ref)}>{t.label}</a> : t.label}
                        <div className="muted small"><Time iso={t.at} /></div>
                      </li>
                    ))}
                  </ol>
                )}
              </section>
            </div>
          </div>
        );
      }}
    </Load>
  );
}
