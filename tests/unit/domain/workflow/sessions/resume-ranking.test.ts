import { rankSessions, searchTextOf, tokenize, type SessionSummary } from '../../../../../src/modules/workflow/domain/sessions';

const s = (id: string, fields: Partial<SessionSummary>): SessionSummary => ({
  sessionId: id, workflowId: 'wf', workflowVersion: '1', status: 'active', current: null,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', searchText: '', ...fields,
});

describe('resume ranking', () => {
  const sessions = [
    s('old-here', { workspacePath: '/repo', gitBranch: 'dev', updatedAt: '2026-01-01T00:00:00.000Z' }),
    s('new-here-main', { workspacePath: '/repo', gitBranch: 'main', updatedAt: '2026-01-02T00:00:00.000Z' }),
    s('elsewhere-newest', { workspacePath: '/other', updatedAt: '2026-01-09T00:00:00.000Z', searchText: searchTextOf('Fix the LOGIN bug', ['found the race']) }),
    s('done', { status: 'complete', workspacePath: '/repo', updatedAt: '2026-01-10T00:00:00.000Z' }),
    s('attention', { status: 'needs_attention', updatedAt: '2026-01-05T00:00:00.000Z' }),
  ];

  it('puts the same workspace first, the same branch above it, then recency; completed only when asked', () => {
    const ids = rankSessions(sessions, { workspacePath: '/repo/', gitBranch: 'dev' }, 10).map((r) => r.summary.sessionId);
    expect(ids).toEqual(['old-here', 'new-here-main', 'elsewhere-newest', 'attention']);
    const withDone = rankSessions(sessions, { workspacePath: '/repo', statuses: ['complete'] }, 10).map((r) => r.summary.sessionId);
    expect(withDone).toEqual(['done']);
  });

  it('with no arguments: the most recent unfinished sessions', () => {
    expect(rankSessions(sessions, {}, 2).map((r) => r.summary.sessionId)).toEqual(['elsewhere-newest', 'attention']);
  });

  it('matches query words in goal and notes (case-insensitive) and drops sessions that match neither words nor place', () => {
    const r = rankSessions(sessions, { query: 'login race' }, 10);
    expect(r.map((x) => x.summary.sessionId)).toEqual(['elsewhere-newest']);
    expect(r[0].reasons).toEqual(['matches 2/2 word(s)']);
    const placed = rankSessions(sessions, { query: 'login', workspacePath: '/repo' }, 10).map((x) => x.summary.sessionId);
    expect(placed).toEqual(['new-here-main', 'old-here', 'elsewhere-newest']);
  });

  it('tokenizes into unique lower-case words', () => {
    expect(tokenize('Fix fix the  Bug! a')).toEqual(['fix', 'the', 'bug']);
  });
});
