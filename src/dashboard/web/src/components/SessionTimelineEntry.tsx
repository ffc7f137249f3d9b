/*
 * What a session page's timeline entry shows beyond its label (pages/Sessions.tsx draws the list): a verification
 * run with its badge and output tails, an audit's ratings. The server builds the entries
 * (src/dashboard/session-timeline.ts).
 */

export interface VerificationRun {
  command: string;
  ranBy: string;
  verified: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  attempt: number;
  stdoutTail: string;
  stderrTail: string;
  reason?: string;
  /** passed / failed (the server ran it), unverified (the agent did), cancelled, interrupted (session-timeline.ts). */
  badge: 'passed' | 'failed' | 'unverified' | 'cancelled' | 'interrupted';
}

export interface AuditRating {
  assessmentId: string;
  dimensions: Array<{ id: string; level: string }>;
}

export interface TimelineEntry {
  at: string;
  kind: 'step' | 'checkpoint' | 'fork' | 'blocked' | 'created' | 'verification' | 'audit';
  label: string;
  ref?: string;
  /** Who made the event: `alice (claude-code)`. */
  actor?: string;
  verification?: VerificationRun;
  audit?: AuditRating[];
}

/** A verification run in the timeline: verified or not, exit code and duration; the output tails on click. */
export function VerificationEntry({ v }: { v: VerificationRun }) {
  const outcome = v.ranBy === 'agent' ? 'run by the agent' : v.badge === 'interrupted' ? 'the server running it stopped' : v.cancelled ? 'cancelled' : v.timedOut ? 'timed out' : v.exitCode === null ? `signal ${v.signal ?? '?'}` : `exit ${v.exitCode}`;
  return (
    <div className="verification" data-testid="verification-run" data-verified={v.verified ? 'true' : 'false'} data-badge={v.badge}>
      <span className={`badge verification-${v.badge}`}>{v.badge}</span>{' '}
      <code className="small">{v.command}</code> <span className="muted small">· {outcome} · {v.durationMs} ms · attempt {v.attempt}</span>
      {v.stdoutTail || v.stderrTail ? (
        <details className="output-tail">
          <summary className="small">output</summary>
          {v.stdoutTail ? (<><div className="muted small">stdout</div><pre data-testid="stdout-tail">{v.stdoutTail}</pre></>) : null}
          {v.stderrTail ? (<><div className="muted small">stderr</div><pre data-testid="stderr-tail">{v.stderrTail}</pre></>) : null}
        </details>
      ) : null}
    </div>
  );
}

/** An audit's ratings in the timeline: each dimension with the level given. */
export function AuditEntry({ ratings }: { ratings: AuditRating[] }) {
  return (
    <div className="audit" data-testid="audit">
      {ratings.map((r) => (
        <div key={r.assessmentId}>
          <span className="muted small">{r.assessmentId}</span>
          <ul className="dimensions">
            {r.dimensions.map((d) => (
              <li key={d.id} data-dimension={d.id} data-level={d.level}><b>{d.id}</b> <span className={`badge level-${d.level}`}>{d.level}</span></li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}
