import { useState, type ReactNode } from 'react';
import type { Loaded } from '../api';

/** Renders a loaded resource: its error as one line, a quiet placeholder while loading, else `children`. */
export function Load<T>({ res, children }: { res: Loaded<T>; children: (data: T) => ReactNode }) {
  if (res.error) return <div className="error" role="alert">{res.error.message}</div>;
  if (res.data === undefined) return <div className="muted">Loading…</div>;
  return <>{children(res.data)}</>;
}

export function Time({ iso }: { iso?: string | number | null }) {
  if (iso === undefined || iso === null) return <span className="muted">—</span>;
  const d = new Date(iso);
  return <time dateTime={d.toISOString()} title={d.toISOString()}>{d.toLocaleString()}</time>;
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{value === undefined ? '—' : JSON.stringify(value, null, 2)}</pre>;
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** Who made a record: `alice (claude-code)` — the identity, and the agent's MCP client beside it. */
export function actorText(actor?: { name?: string; client?: string } | null): string | undefined {
  if (!actor?.name) return undefined;
  return actor.client ? `${actor.name} (${actor.client})` : actor.name;
}

/**
 * A line saying a drawing was laid out without ELK, and why (an MCP Apps view whose host passes no resource reads
 * to the server, a read that failed, a frame that allows no worker: elk-engine-inline.ts) — a notice, not an error:
 * everything is drawn. It wraps: the whole reason is readable in a 400 px frame. `onRetry` (where another try may help:
 * the reads failed) lays the drawing out again; render it with a new `key` per try, so a try that fails offers another.
 */
export function LayoutNotice({ reason, drawn, onRetry }: { reason: string; drawn: string; onRetry?: () => void }) {
  const [retrying, setRetrying] = useState(false);
  return (
    <div className="layout-notice muted small" role="status" data-testid="layout-notice">
      Laid out without ELK ({reason}): {drawn}.
      {onRetry ? (
        <>
          {' '}
          <button
            className="link"
            disabled={retrying}
            data-testid="layout-retry"
            onClick={() => {
              setRetrying(true);
              onRetry();
            }}
          >
            {retrying ? 'Retrying…' : 'Retry'}
          </button>
        </>
      ) : null}
    </div>
  );
}
