import type { ReactNode } from 'react';
import { useDisplayMode } from './host';

/** The frame every view draws in: a title line (refresh, fullscreen where the host offers it), an error line, the body. */
export function ViewFrame({ title, subtitle, error, onRefresh, children }: { title: string; subtitle?: string; error?: string; onRefresh?: () => void; children: ReactNode }) {
  const display = useDisplayMode();
  return (
    <div className="view" data-testid="view">
      <div className="view-head">
        <h1>
          {title} {subtitle ? <span className="muted small">{subtitle}</span> : null}
        </h1>
        <span className="spacer" />
        {onRefresh ? <button onClick={onRefresh} data-testid="view-refresh" title="Read again">Refresh</button> : null}
        {display.canToggle ? (
          <button onClick={display.toggle} data-testid="view-display-mode">{display.mode === 'fullscreen' ? 'Exit fullscreen' : 'Fullscreen'}</button>
        ) : null}
      </div>
      {error ? <div className="error" role="alert" data-testid="view-error">{error}</div> : null}
      {children}
    </div>
  );
}
