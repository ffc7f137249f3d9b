import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { createTestContainer } from '../../../src/server/container';
import { WorkflowTokens } from '../../../src/modules/workflow';
import type { UseCase } from '../../../src/kernel/use-case';
import { noopCallContext } from '../../../src/kernel/call-context';

export const SESSION_WORKFLOWS = path.join(__dirname, '..', '..', 'fixtures', 'session-workflows');

/** A temp data dir and a temp copy of the session workflows (so a test may edit them), with a container over both. */
export function sessionFixture(overrides: { maxBlockedAttempts?: number } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-sessions-'));
  const workflows = path.join(root, 'workflows');
  fs.cpSync(SESSION_WORKFLOWS, workflows, { recursive: true });
  const dataDir = path.join(root, 'data');
  const container: DependencyContainer = createTestContainer({
    dataDir,
    workflowSources: [{ dir: workflows, source: 'flag' }],
    workflowCacheTtlMs: 0,
    sessions: { maxBlockedAttempts: overrides.maxBlockedAttempts ?? 3, completedRetentionDays: 30 },
  });
  const call = <O = any>(token: symbol, input: unknown, ctx = noopCallContext()): Promise<O> =>
    Promise.resolve(container.resolve<UseCase<unknown, O>>(token).execute(input, ctx));
  return {
    root,
    workflows,
    dataDir,
    container,
    start: (input: Record<string, unknown>, ctx?: ReturnType<typeof noopCallContext>) => call(WorkflowTokens.StartSession, input, ctx),
    next: (input: Record<string, unknown>) => call(WorkflowTokens.ContinueSession, input),
    checkpoint: (input: Record<string, unknown>) => call(WorkflowTokens.CheckpointSession, input),
    resume: (input: Record<string, unknown>, ctx?: ReturnType<typeof noopCallContext>) => call(WorkflowTokens.ResumeSessions, input, ctx),
    list: (input: Record<string, unknown> = {}) => call(WorkflowTokens.ListSessions, input),
    timeline: (sessionId: string) => call(WorkflowTokens.GetSessionTimeline, { sessionId }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
