import type { SessionStatus, StepPointer } from './session-events';

/** What the session index holds per session: enough to list, filter and rank without opening the session. */
export interface SessionSummary {
  sessionId: string;
  workflowId: string;
  workflowVersion: string;
  goal?: string;
  workspacePath?: string;
  gitBranch?: string;
  status: SessionStatus;
  current: StepPointer | null;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /** Goal and recent notes as one lower-cased text, bounded, for text matching. */
  searchText: string;
}

export interface ResumeQuery {
  query?: string;
  workspacePath?: string;
  gitBranch?: string;
  /** Statuses that are candidates; default every unfinished one. */
  statuses?: readonly SessionStatus[];
}

export interface RankedSession {
  summary: SessionSummary;
  score: number;
  /** Why it ranked where it did (workspace, branch, matched words). */
  reasons: string[];
}

const UNFINISHED: readonly SessionStatus[] = ['active', 'needs_attention'];

/**
 * Ranks sessions for resume: the same workspace (and then the same branch) first, then how many of the query's words
 * the goal and notes contain, then the most recently updated. Completed sessions only when `statuses` asks for them.
 * Pure and O(sessions × query words).
 */
export function rankSessions(sessions: Iterable<SessionSummary>, q: ResumeQuery, limit: number): RankedSession[] {
  const statuses = q.statuses?.length ? q.statuses : UNFINISHED;
  const words = tokenize(q.query ?? '');
  const workspace = q.workspacePath ? normalizePath(q.workspacePath) : undefined;
  const ranked: RankedSession[] = [];
  for (const s of sessions) {
    if (!statuses.includes(s.status)) continue;
    const reasons: string[] = [];
    let tier = 0;
    if (workspace && s.workspacePath && normalizePath(s.workspacePath) === workspace) {
      tier += 2;
      reasons.push('same workspace');
      if (q.gitBranch && s.gitBranch === q.gitBranch) {
        tier += 1;
        reasons.push('same branch');
      }
    }
    let matched = 0;
    for (const w of words) if (s.searchText.includes(w)) matched++;
    if (words.length && matched) reasons.push(`matches ${matched}/${words.length} word(s)`);
    // A text query that matches nothing only keeps sessions that rank on place.
    if (words.length && !matched && tier === 0) continue;
    const score = tier * 1_000 + (words.length ? Math.round((matched / words.length) * 100) : 0);
    ranked.push({ summary: s, score, reasons });
  }
  ranked.sort((a, b) => b.score - a.score || (a.summary.updatedAt < b.summary.updatedAt ? 1 : a.summary.updatedAt > b.summary.updatedAt ? -1 : 0));
  return ranked.slice(0, Math.max(0, limit));
}

/** Lower-cased words of 2+ letters or digits. */
export function tokenize(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_-]{2,}/gu) ?? [])];
}

/** Trailing separators do not make a different workspace. */
function normalizePath(p: string): string {
  return p.length > 1 ? p.replace(/[\\/]+$/, '') : p;
}

/** The bounded text kept for matching: goal plus recent notes, lower-cased, at most `max` characters. */
export function searchTextOf(goal: string | undefined, notes: readonly string[], max = 2_000): string {
  return [goal ?? '', ...notes].join('\n').toLowerCase().slice(0, max);
}
