import { actorOf, type CallContext } from '../../../../../kernel/call-context';
import type { RunningVerification, SessionEvent, VerificationRunEvent } from '../../../domain/sessions';
import type { SessionEngine } from '../../services/session-engine';

/**
 * A verification run a dead server left (issue 24): the session's store still holds its running record — the server
 * was SIGKILLed or crashed between starting the command and writing its outcome. When its owner is known to be gone
 * (this host: the pid ended or is another process now, or the host rebooted), what is left of the command is killed
 * (the processes carrying its run id, its process group) and, if the session is still at that verification step and
 * the log does not have the run yet, a `verification_run` event with `interrupted: true` is written — not a failed
 * attempt: the verification runs again on this very continue. A record whose owner still runs (another server on this
 * host) or cannot be told (another host) is left alone. Returns whether a dead server's record was dealt with.
 */
export async function recoverInterruptedVerification(engine: SessionEngine, sessionId: string, ctx: CallContext | undefined, now: () => number): Promise<boolean> {
  const runs = await engine.store.runningVerifications(sessionId).catch(() => []);
  let recovered = false;
  for (const run of runs) {
    if (engine.verifier.runsHere(run.runId) || engine.verifier.ownerAlive(run.owner) !== false) continue;
    engine.verifier.stopOrphan(run.runId, run.pgid);
    await engine.store.update(sessionId, async (state, history) => {
      const atStep = state.head.node === run.node && state.head.current?.completionId === run.completionId;
      if (!atStep) return { events: [], result: undefined };
      const written = (await history()).events.some((e) => e.kind === 'verification_run' && e.runId === run.runId);
      if (written) return { events: [], result: undefined };
      return { events: [{ ...interruptedEvent(run, state.head.blockedAttempts + 1, now()), actor: actorOf(ctx) } as SessionEvent], result: undefined };
    });
    await engine.store.clearRunningVerification(sessionId, run.runId);
    recovered = true;
  }
  return recovered;
}

/** The event of a run its server did not live to finish: nothing known of its end, no output kept. */
function interruptedEvent(run: RunningVerification, attempt: number, nowMs: number): VerificationRunEvent {
  return {
    at: new Date(nowMs).toISOString(),
    kind: 'verification_run',
    node: run.node,
    completionId: run.completionId,
    stepId: run.stepId,
    parentStepId: run.parentStepId,
    command: run.command,
    ranBy: 'server',
    cwd: run.cwd,
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    interrupted: true,
    durationMs: Math.max(0, Math.round(nowMs - Date.parse(run.startedAt))),
    stdoutTail: '',
    stderrTail: '',
    truncated: false,
    verified: false,
    // As a cancelled run: the count of the attempt it interrupted, which is not used up.
    attempt,
    ...(run.timeoutMs !== undefined ? { timeoutMs: run.timeoutMs } : {}),
    runId: run.runId,
  };
}
