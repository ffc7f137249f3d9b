import { foldCheckedSessionEvents, type SessionEvent, type SessionState } from '../../domain/sessions';
import type { DamagedLine } from '../../application/ports/session-store';
import { excerpt, type LogRead } from './session-log-file';

/** Folds what was read, each line that cannot follow the ones before it reported as damaged (never applied). */
export function checkedFold(base: SessionState | undefined, read: LogRead): { state: SessionState | undefined; applied: SessionEvent[]; damaged: DamagedLine[]; skipped: number } {
  const { state, applied, skipped } = foldCheckedSessionEvents(base, read.events);
  const damaged = [
    ...read.damaged,
    ...skipped.map((k) => ({ line: read.eventLines[k.index]!, excerpt: excerpt(JSON.stringify(read.events[k.index])), reason: k.reason })),
  ].sort((a, b) => a.line - b.line);
  return { state, applied, damaged, skipped: skipped.length };
}

/** The last line of `text` (which ends with a newline), with its newline. */
export function lastLineOf(text: string): string {
  return text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
}
