import { STATUS_STYLE, statusLabel } from '../status';

/** A task status as text on its colour (never colour alone). */
export function StatusBadge({ status, count }: { status: string; count?: number }) {
  const s = STATUS_STYLE[status] ?? STATUS_STYLE.PENDING;
  return (
    <span className="badge" data-status={status} style={{ background: s.bg, color: s.fg, borderColor: s.border }}>
      {statusLabel(status)}
      {count !== undefined ? <b> {count}</b> : null}
    </span>
  );
}
