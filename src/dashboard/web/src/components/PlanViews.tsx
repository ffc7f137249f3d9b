import { useEffect, useState } from 'react';
import type { Claimant, PlanChange, TaskClaim, TaskTransition } from '../types';
import { Time } from './common';
import { StatusBadge } from './StatusBadge';

/** Who acted: the agent name and the caller's identity, then the host ("agent-a (alice) on build-3"). */
export function actorLabel(a: Claimant): string {
  const who = a.agent && a.identity ? `${a.agent} (${a.identity})` : a.agent ?? a.identity ?? 'anonymous';
  return `${who} on ${a.host}${a.client ? ` via ${a.client}` : ''}`;
}

/**
 * A task's status changes, oldest first: from → to (or "created as"), the attempt, who made it (identity, and the MCP
 * client it called through) and when.
 */
export function TransitionList({ transitions }: { transitions: TaskTransition[] }) {
  if (transitions.length === 0) return <div className="muted">No transitions logged.</div>;
  return (
    <ol className="timeline" data-testid="transitions">
      {transitions.map((t, i) => (
        <li key={i} data-to={t.to}>
          {t.from === t.to ? <>created as <StatusBadge status={t.to} /></> : <><StatusBadge status={t.from} /> → <StatusBadge status={t.to} /></>}
          <span className="muted small"> attempt {t.attempt} · <Time iso={t.time} /></span>
          <div className="small" data-testid="transition-actor">
            {t.actor ? (
              <>
                by <strong>{t.actor.name}</strong>
                {t.actor.client ? <span className="muted"> via {t.actor.client}</span> : null}
              </>
            ) : (
              <span className="muted">by — (logged before actors were kept)</span>
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** "in 29 min" / "lapsed 2 min ago", re-rendered every 30 s so it stays true on an open page. */
function Lapse({ iso }: { iso: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  const mins = Math.round((Date.parse(iso) - now) / 60_000);
  const rel = mins > 0 ? `in ${mins} min` : mins < 0 ? `lapsed ${-mins} min ago` : 'now';
  return (
    <span>
      <Time iso={iso} /> <span className="muted small">({rel})</span>
    </span>
  );
}

/** The claim on a started task, as key/value rows of the details panel. */
export function ClaimRows({ claim }: { claim?: TaskClaim }) {
  if (!claim) {
    return (
      <>
        <span>Claimed by</span>
        <span className="muted" data-testid="task-claim">nobody</span>
      </>
    );
  }
  return (
    <>
      <span>Claimed by</span>
      <span data-testid="task-claim">
        <strong>{claim.agent ?? claim.identity ?? 'anonymous'}</strong>
        {claim.agent && claim.identity ? <span className="muted"> ({claim.identity})</span> : null}
        <span className="muted small"> on {claim.host}</span>
      </span>
      <span>Since</span>
      <Time iso={claim.since} />
      <span>Lapses</span>
      <span data-testid="task-claim-lapse"><Lapse iso={claim.expires_at} /></span>
    </>
  );
}

/** Changes of the plan, newest first: action, actor, time and the one-line reason. */
export function PlanHistory({ changes, testId, showNodes }: { changes: PlanChange[]; testId: string; showNodes?: boolean }) {
  if (changes.length === 0) return <div className="muted small" data-testid={testId}>No changes recorded.</div>;
  return (
    <ol className="timeline plan-history" data-testid={testId}>
      {[...changes].reverse().map((c) => (
        <li key={`${c.revision}:${c.action}:${c.time}`} data-action={c.action}>
          <div>
            <code>{c.action}</code> <span className="muted small">r{c.revision}</span>
          </div>
          <div className="small">{c.reason}</div>
          <div className="muted small">
            {actorLabel(c.actor)} · <Time iso={c.time} />
            {showNodes && c.nodes.length ? <> · {c.nodes.slice(0, 5).join(', ')}{c.nodes.length > 5 ? ` +${c.nodes.length - 5}` : ''}</> : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
