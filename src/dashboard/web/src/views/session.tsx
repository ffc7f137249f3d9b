/**
 * A workflow session as an MCP Apps view (ui://workgraph/session): its progress and steps, the current step's
 * prompt, its blockers, and the event timeline, drawn with the dashboard's session pieces (ProgressText, Markdown,
 * its step and timeline styles). A workflow_session result is drawn as is; a workflow_start / workflow_continue
 * result (the current step, no history) is drawn at once and the timeline read once with workflow_session; every
 * later result updates it. A step that asks for the person's confirmation gets an Approve button (with
 * `--allow-actions`): a workflow_checkpoint naming the approval — a call an agent could make — and a message to the
 * chat saying so, where the host takes messages. A session advanced elsewhere (another client) is heard through the
 * server's resource_changes tool and read again; the answer's step is then no longer shown as current.
 */
import { createRoot } from 'react-dom/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import '../styles.css';
import './view.css';
import { ProgressText } from '../pages/Sessions';
import { Markdown } from '../components/Markdown';
import { Empty, Time } from '../components/common';
import { callTool, connectHost, sendChatMessage, useHost, useRefreshOnReturn, useResourceChanges, viewSettings } from './host';
import { ViewFrame } from './ViewFrame';

connectHost('workflow session');
const settings = viewSettings();

interface Progress {
  done: number;
  total: number;
  skipped: number;
  steps: Array<{ stepId: string; title: string; state: 'done' | 'current' | 'pending' | 'skipped' }>;
}
interface SessionEvent {
  seq: number;
  kind: string;
  at: string;
  title?: string;
  completionId?: string;
  notesMarkdown?: string;
  note?: string;
  blockers?: Array<{ message: string }>;
  actor?: { name: string; client?: string };
}
interface Session {
  sessionId: string;
  workflow?: { id: string; version: string };
  goal?: string;
  status?: string;
  progress?: Progress;
  events?: SessionEvent[];
  totalEvents?: number;
}
interface StepAnswer {
  status: 'started' | 'advanced' | 'blocked' | 'complete';
  sessionId: string;
  continueToken?: string;
  step?: { id: string; title: string; requireConfirmation?: boolean } | null;
  confirmation?: { by: string; reason?: string };
  guidance?: { prompt: string };
  blockers?: Array<{ message: string }>;
  isComplete?: boolean;
  sessionStatus?: string;
}

const EVENT_WORDS: Record<string, string> = {
  session_started: 'started',
  step_completed: 'step done',
  output_blocked: 'blocked',
  checkpoint_created: 'checkpoint',
  forked: 'forked',
  session_completed: 'complete',
};

function SessionApp() {
  const host = useHost();
  const [session, setSession] = useState<Session>();
  const [answer, setAnswer] = useState<StepAnswer>();
  const [error, setError] = useState<string>();
  const [approved, setApproved] = useState<string>();
  const [busy, setBusy] = useState(false);
  const sessionId = session?.sessionId ?? answer?.sessionId;

  const loadSession = useCallback((id: string | undefined) => {
    if (!id) return;
    callTool<Session>('workflow_session', { sessionId: id }).then(
      (s) => {
        setSession(s);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  }, []);

  const seen = useRef(0);
  useEffect(() => {
    for (const r of host.results.slice(seen.current)) {
      if (r.error !== undefined) {
        setError(r.error);
        continue;
      }
      const s = r.structured ?? {};
      if (Array.isArray(s.events) || s.progress) setSession(s as unknown as Session);
      else if (typeof s.status === 'string' && typeof s.sessionId === 'string') {
        setAnswer(s as unknown as StepAnswer);
        setApproved(undefined);
        // The answer holds the current step, not the history: read it (again: the answer moved the session on).
        loadSession(s.sessionId as string);
      }
    }
    seen.current = host.results.length;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [host.results]);
  useRefreshOnReturn(useCallback(() => loadSession(sessionId), [loadSession, sessionId]));
  // The session moved on elsewhere (another client continued it): read it again.
  useResourceChanges(sessionId ? [`workgraph://sessions/${sessionId}`] : [], useCallback(() => loadSession(sessionId), [loadSession, sessionId]));

  // The answer's step is shown while it is still the session's current one (another client may have moved past it).
  const current = session?.progress?.steps.find((st) => st.state === 'current')?.stepId;
  const answerStale = Boolean(answer?.step && session?.progress && current !== answer.step.id && answer.status !== 'complete');
  const step = answerStale ? null : (answer?.step ?? null);
  const needsConfirmation = Boolean(step && (step.requireConfirmation || answer?.confirmation) && answer?.status !== 'complete');
  const approve = async () => {
    if (!answer?.continueToken || !step) return;
    setBusy(true);
    try {
      const note = `Approved by the person in the session view: ${step.title} (${step.id})`;
      await callTool('workflow_checkpoint', { continueToken: answer.continueToken, note });
      await sendChatMessage(`I approve the step "${step.title}": go on.`);
      setApproved(note);
      loadSession(answer.sessionId);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const events = session?.events ?? [];
  return (
    <ViewFrame title={session?.workflow?.id ?? 'Workflow session'} subtitle={sessionId} error={host.error ?? error} onRefresh={sessionId ? () => loadSession(sessionId) : undefined}>
      {!session && !answer ? <div className="muted">{host.connected ? 'Waiting for the tool result…' : 'Connecting to the host…'}</div> : null}
      {session?.status ? <p className="small"><span className={`run-status ${session.status}`} data-testid="session-status">{session.status}</span>{session.goal ? <> · {session.goal}</> : null}</p> : null}
      {session?.progress ? (
        <div className="progress" aria-label="progress" data-testid="progress">
          <div style={{ width: `${(100 * session.progress.done) / Math.max(1, session.progress.total)}%` }} />
          <ProgressText p={session.progress} />
        </div>
      ) : null}
      {answer && step ? (
        <section className="view-current" data-testid="current-step">
          <h2 data-testid="current-title">
            {answer.status === 'blocked' ? 'Blocked on' : 'Now'}: {step.title} <code className="small">{step.id}</code>
          </h2>
          {needsConfirmation ? (
            <div className="notice small" data-testid="confirmation">
              {answer.confirmation?.reason ?? 'This step asks for your confirmation before the agent goes on.'}
              {settings.actions ? (
                approved ? <div data-testid="approved">✓ {approved}</div> : <div><button onClick={approve} disabled={busy} data-testid="approve-step">Approve step</button></div>
              ) : null}
            </div>
          ) : null}
          {answer.blockers?.length ? (
            <ul className="list" data-testid="blockers">{answer.blockers.map((b, i) => <li key={i} className="error small">{b.message}</li>)}</ul>
          ) : null}
          {answer.guidance?.prompt ? (
            <details>
              <summary className="small">The step's prompt</summary>
              <Markdown text={answer.guidance.prompt} />
            </details>
          ) : null}
        </section>
      ) : answer?.status === 'complete' || (answerStale && session?.status === 'complete') ? (
        <div className="notice" data-testid="current-step">The session is complete.</div>
      ) : answerStale && current ? (
        <div className="notice small" data-testid="moved-on">The session moved on since this answer: now at <code>{current}</code>.</div>
      ) : null}
      {session?.progress ? (
        <section>
          <h2>Steps</h2>
          <ol className="steps" data-testid="steps">
            {session.progress.steps.map((st) => (
              <li key={st.stepId} className={`step ${st.state}`} data-step={st.stepId} data-state={st.state}>
                <div><span className="step-state">{st.state}</span> <b>{st.title}</b> <code className="small">{st.stepId}</code></div>
                {events.filter((e) => e.completionId === st.stepId && e.kind === 'step_completed' && e.notesMarkdown).map((e) => (
                  <div key={e.seq} className="note"><Markdown text={e.notesMarkdown!} /></div>
                ))}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      {session ? (
        <section>
          <h2>Timeline <span className="muted small">{session.totalEvents ?? events.length}</span></h2>
          {events.length === 0 ? <Empty>Nothing yet.</Empty> : (
            <ol className="timeline" data-testid="session-timeline">
              {events.map((e) => (
                <li key={e.seq} className={`tl-${e.kind}`} data-kind={e.kind}>
                  <span className="tl-kind">{EVENT_WORDS[e.kind] ?? e.kind.replace(/_/g, ' ')}</span> {e.title ?? ''}
                  {e.note ? <div className="small">{e.note}</div> : null}
                  {e.blockers?.length ? <div className="error small">{e.blockers.map((b) => b.message).join('; ')}</div> : null}
                  <div className="muted small"><Time iso={e.at} />{e.actor ? ` · ${e.actor.name}${e.actor.client ? ` (${e.actor.client})` : ''}` : ''}</div>
                </li>
              ))}
            </ol>
          )}
        </section>
      ) : null}
    </ViewFrame>
  );
}

createRoot(document.getElementById('root')!).render(<SessionApp />);
