import { useEffect, useState } from 'react';
import { api, useApi } from '../api';
import { href } from '../router';
import { Empty, Json, Load, Time } from '../components/common';
import { Markdown } from '../components/Markdown';
import { AuditEntry, VerificationEntry, type TimelineEntry } from '../components/SessionTimelineEntry';
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
interface SessionDetail extends SessionSummary {
  createdAt: string;
  steps: SessionStep[];
  branches: Branch[];
  currentPrompt?: string;
  summary?: string;
  blocked: Array<{ at: string; stepId: string; issues: string[] }>;
  timeline: TimelineEntry[];
  context?: unknown;
  /** Events in the whole session, and where the next page of them starts (the API answers one page at a time). */
  totalEvents?: number;
  nextCursor?: string;
}

/**
 * The pages after the first one the reader asked for ("Load more"), each fetched by the cursor the one before it
 * answered. When the first page is read again (a live change), the same number of pages is read again after it, so
 * what is shown stays whole and current.
 */
function useMorePages(id: string, first: SessionDetail | undefined): { pages: SessionDetail[]; loading: boolean; error?: string; more: () => void } {
  const [wanted, setWanted] = useState(0);
  const [pages, setPages] = useState<SessionDetail[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    if (!first || wanted === 0) {
      setPages([]);
      return;
    }
    setLoading(true);
    (async () => {
      const out: SessionDetail[] = [];
      let cursor = first.nextCursor;
      while (cursor && out.length < wanted) {
        const page: SessionDetail = await api<SessionDetail>(`/sessions/${encodeURIComponent(id)}?cursor=${encodeURIComponent(cursor)}`);
        out.push(page);
        cursor = page.nextCursor;
      }
      if (live) {
        setPages(out);
        setError(undefined);
      }
    })()
      .catch((e: Error) => live && setError(e.message))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [id, first, wanted]);
  return { pages, loading, error, more: () => setWanted((n) => n + 1) };
}

/** The first page with the later ones loaded: timeline and blocked attempts in order, each step's notes all along. */
function mergePages(first: SessionDetail, later: SessionDetail[]): { timeline: TimelineEntry[]; blocked: SessionDetail['blocked']; notes: Map<string, SessionStep> } {
  const notes = new Map<string, SessionStep>();
  for (const p of later) for (const st of p.steps) if (st.notes.length || st.artifacts.length) notes.set(st.id, { ...st, notes: [...(notes.get(st.id)?.notes ?? []), ...st.notes], artifacts: [...(notes.get(st.id)?.artifacts ?? []), ...st.artifacts] });
  return {
    timeline: [...first.timeline, ...later.flatMap((p) => p.timeline)],
    blocked: [...first.blocked, ...later.flatMap((p) => p.blocked)],
    notes,
  };
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
  const later = useMorePages(id, res.data);
  return (
    <Load res={res}>
      {(s) => {
        const branch = s.branches.find((b) => b.tip === tip) ?? s.branches.find((b) => b.head);
        const onHead = !branch || branch.head;
        const merged = mergePages(s, later.pages);
        // The head branch's steps gain the notes of the later pages (each page's own steps carry that page's notes).
        const steps = (branch?.steps ?? s.steps).map((st) => {
          const more = onHead ? merged.notes.get(st.id) : undefined;
          return more ? { ...st, notes: [...st.notes, ...more.notes], artifacts: [...st.artifacts, ...more.artifacts] } : st;
        });
        const last = later.pages.length ? later.pages[later.pages.length - 1]! : s;
        const shown = merged.timeline.length;
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
                {merged.blocked.length ? (
                  <>
                    <h2>Blocked attempts</h2>
                    <ul className="list">
                      {merged.blocked.map((b, i) => (
                        <li key={i}><b>{b.stepId}</b> · <Time iso={b.at} /><ul>{b.issues.map((x, j) => <li key={j} className="error small">{x}</li>)}</ul></li>
                      ))}
                    </ul>
                  </>
                ) : null}
              </section>
              <section>
                <h2>Timeline</h2>
                {merged.timeline.length === 0 ? <Empty>Nothing yet.</Empty> : (
                  <ol className="timeline" data-testid="session-timeline">
                    {merged.timeline.map((t, i) => (
                      <li key={i} className={`tl-${t.kind}`}>
                        <span className="tl-kind">{t.kind}</span> {t.ref ? <a href={href('sessions', t.ref)}>{t.label}</a> : t.label}
                        {t.verification ? <VerificationEntry v={t.verification} /> : null}
                        {t.audit ? <AuditEntry ratings={t.audit} /> : null}
                        <div className="muted small">
                          <Time iso={t.at} />
                          {t.actor ? <> · by <span data-testid="event-actor">{t.actor}</span></> : null}
                        </div>
                      </li>
                    ))}
                  </ol>
                )}
                {s.totalEvents !== undefined && s.totalEvents > shown ? (
                  <p className="muted small" data-testid="timeline-count">Showing the first {shown} of {s.totalEvents} events.</p>
                ) : null}
                {last.nextCursor ? (
                  <button onClick={later.more} disabled={later.loading} data-testid="load-more">
                    {later.loading ? 'Loading…' : 'Load more'}
                  </button>
                ) : null}
                {later.error ? <div className="error small">{later.error}</div> : null}
              </section>
            </div>
          </div>
        );
      }}
    </Load>
  );
}
