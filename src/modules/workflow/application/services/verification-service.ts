import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { WorkflowTokens } from '../workflow.tokens';
import { CommandFailedError } from '../../../../kernel/errors';
import { hasScope } from '../../../../kernel/identity';
import type { AppConfig } from '../../../../kernel/config/app-config';
import type { CallContext } from '../../../../kernel/call-context';
import type { Clock, Timers } from '../../../../kernel/clock';
import type { PathPolicy } from '../../../../kernel/path-policy';
import type { VirtualStepInfo } from '../../domain/types';
import { verificationProgress } from '../../domain/verification-guidance';
import type { CommandResult, VerificationRunner } from '../ports/verification-runner';
import type { CommandOwner, OrphanedCommands } from '../../../../kernel/command-runner';

/** Why the server hands a verification command to the agent instead of running it. */
export type AgentVerificationReason = 'disabled' | 'no_run_scope' | 'no_workspace' | 'workspace_outside_roots';

/** Whether the server runs a verification command for this caller, and where. */
export type VerificationPolicy = { server: true; cwd: string } | { server: false; reason: AgentVerificationReason };

export type VerificationInfo = Extract<VirtualStepInfo, { kind: 'verification' }>;

/** One verification attempt as answers and the session timeline carry it (the `verification_run` event's fields). */
export interface VerificationOutcome {
  command: string;
  ranBy: 'server' | 'agent';
  reason?: AgentVerificationReason;
  cwd?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
  truncated: boolean;
  verified: boolean;
  timeoutMs?: number;
  /** The run's id (WORKGRAPH_COMMAND_ID in the command's environment): kept in the session's event, never answered. */
  runId?: string;
}

/** What a run's owner records while its command runs (a session's running record), so a dead server's run is found. */
export interface RunRecording {
  /** Before the command starts (awaited: a run that cannot be recorded does not start). */
  beforeStart(run: { runId: string; startedAt: string; owner: CommandOwner; timeoutMs: number }): Promise<void>;
  /** Once the command's shell runs, with its pid (the leader of its process group). Best effort. */
  started(pgid: number): void;
}

/** A run still going when the call stopped waiting for it: call again to wait for it or get its outcome. */
export interface StillRunning {
  running: true;
  command: string;
  /** Seconds since it started. */
  seconds: number;
  /** The latest line of its output, if any. */
  lastLine?: string;
}

/** One run in progress: its own cancellation (a waiting caller's abort reaches it), whoever waits for it now. */
interface ActiveRun {
  promise: Promise<VerificationOutcome>;
  controller: AbortController;
  listeners: Set<CallContext['progress']>;
  waiters: number;
  startedAt: number;
  command?: string;
  lastLine?: string;
}

/** How long the outcome of a run that ended while nobody waited is kept for its next caller: an hour. */
const ENDED_KEPT_MS = 3_600_000;

/** Progress notifications while a command runs: about one a second (as validate_task_loop sends them). */
const PROGRESS_INTERVAL_MS = 1_000;

/**
 * Runs verification commands for workflow_next and the sessions: decides whether the caller may have the server run
 * one (the `run` scope, a workspace inside the caller's roots, the operator not having turned it off), runs it with
 * the tasks module's runner in that workspace, and turns the result into the outcome the answers and the timeline
 * carry. The progress and cancel path is validate_task_loop's: a progress notification about every second with the
 * elapsed time and the latest output line, and the call's abort signal (client cancellation, server shutdown) kills the
 * command's process tree. One run per key at a time in this process: a second call for the same step joins it.
 */
@injectable()
export class VerificationService {
  private readonly running = new Map<string, ActiveRun>();
  /** Runs that ended while nobody waited (after a "running" answer), for the next caller of their key. */
  private readonly ended = new Map<string, { outcome: VerificationOutcome; at: number }>();
  /** The run ids of the commands this process runs now. */
  private readonly runIds = new Set<string>();

  constructor(
    @inject(WorkflowTokens.VerificationRunner) private readonly runner: VerificationRunner,
    @inject(Tokens.PathPolicy) private readonly paths: PathPolicy,
    @inject(Tokens.Config) private readonly config: AppConfig,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Timers) private readonly timers: Timers,
    @inject(Tokens.OrphanedCommands, { isOptional: true }) private readonly orphans?: OrphanedCommands,
  ) {}

  /** Whether run `runId` is this process's and still going. */
  runsHere(runId: string): boolean {
    return this.runIds.has(runId);
  }

  /** Whether a recorded run's owner still runs (undefined: it cannot be told from here — another host, no facts). */
  ownerAlive(owner: CommandOwner): boolean | undefined {
    return this.orphans?.ownerAlive(owner);
  }

  /** Kills what a dead owner's run left running (its marked processes, its group). Returns how many were found. */
  stopOrphan(runId: string, pgid?: number): number {
    return this.orphans?.stop(runId, pgid) ?? 0;
  }

  /** Failed runs in a row on one verification step before it needs a person (--max-verification-attempts). */
  get maxAttempts(): number {
    return this.config.verification?.maxAttempts ?? 5;
  }

  /** Whether the server runs the command for this caller in `workspacePath`, or why not. */
  async policy(workspacePath: string | undefined, ctx: CallContext | undefined): Promise<VerificationPolicy> {
    if (this.config.verification?.agentOnly) return { server: false, reason: 'disabled' };
    if (!ctx || !hasScope(ctx.identity, 'run')) return { server: false, reason: 'no_run_scope' };
    if (!workspacePath) return { server: false, reason: 'no_workspace' };
    try {
      const cwd = await this.paths.resolveAllowedDirectory(workspacePath, 'workspacePath', { clientRoots: ctx.clientRoots, identity: ctx.identity });
      return { server: true, cwd };
    } catch {
      return { server: false, reason: 'workspace_outside_roots' };
    }
  }

  /** The outcome of a verification handed to the agent: nothing ran here, so it is not verified. */
  agentOutcome(info: VerificationInfo, reason: AgentVerificationReason): VerificationOutcome {
    return {
      command: info.command, ranBy: 'agent', reason, exitCode: null, signal: null, timedOut: false, cancelled: false, durationMs: 0,
      stdoutTail: '', stderrTail: '', truncated: false, verified: false,
    };
  }

  /**
   * Runs the command in `cwd` to its end, its time limit or the call's cancellation (a second call with the same
   * `key` joins the run in progress). A command that cannot start is a failed run whose stderr says why.
   */
  async run(info: VerificationInfo, cwd: string, ctx: CallContext, key: string, recording?: RunRecording): Promise<VerificationOutcome> {
    return (await this.runFor(info, cwd, ctx, key, Infinity, recording)) as VerificationOutcome;
  }

  /**
   * As {@link run}, but waits at most `waitMs` (validate_task_loop's `waitSeconds` rule): a run still going then is
   * answered {@link StillRunning} and goes on; the next call with the same `key` waits for it again, or takes its
   * outcome if it ended meanwhile (kept in this process for an hour, for one caller). While a call waits, its abort
   * cancels the run and it hears the run's progress; a call the tasks extension made a task waits to the end.
   */
  async runFor(info: VerificationInfo, cwd: string, ctx: CallContext, key: string, waitMs: number, recording?: RunRecording): Promise<VerificationOutcome | StillRunning> {
    // Outcomes nobody came back for within the hour are dropped (no timer: it would hold the process open).
    for (const [k, e] of this.ended) if (this.clock.now() - e.at > ENDED_KEPT_MS) this.ended.delete(k);
    const ended = this.ended.get(key);
    if (ended) {
      this.ended.delete(key);
      return ended.outcome;
    }
    let run = this.running.get(key);
    if (!run) {
      const started: ActiveRun = { controller: new AbortController(), listeners: new Set(), waiters: 0, startedAt: this.clock.now(), promise: undefined as never };
      started.promise = this.execute(info, cwd, started, recording).then((outcome) => {
        this.running.delete(key);
        // Nobody waits for it (the last caller was answered "running"): kept for the next caller of the same key.
        if (started.waiters === 0) this.ended.set(key, { outcome, at: this.clock.now() });
        return outcome;
      }, (e) => {
        this.running.delete(key);
        throw e;
      });
      this.running.set(key, started);
      run = started;
    }
    return this.waitFor(run, ctx, waitMs);
  }

  private async waitFor(run: ActiveRun, ctx: CallContext, waitMs: number): Promise<VerificationOutcome | StillRunning> {
    // A modern client with the tasks extension gets a task id now: the command may run for minutes.
    const promoted = ctx.promoteToTask?.() ?? false;
    const onAbort = () => run.controller.abort();
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const listener = (value: number, total?: number, message?: string) => ctx.progress(value, total, message);
    run.listeners.add(listener);
    run.waiters++;
    let stopTimer = (): void => undefined;
    try {
      const limit = promoted ? Infinity : waitMs;
      const timeout = Number.isFinite(limit) ? new Promise<undefined>((resolve) => (stopTimer = this.timers.after(Math.max(0, limit), () => resolve(undefined)))) : undefined;
      const outcome = await (timeout ? Promise.race([run.promise, timeout]) : run.promise);
      if (outcome) return outcome;
      return { running: true, command: run.command ?? '', seconds: Math.max(0, this.clock.now() - run.startedAt) / 1000, lastLine: run.lastLine };
    } finally {
      stopTimer();
      run.waiters--;
      run.listeners.delete(listener);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  private async execute(info: VerificationInfo, cwd: string, run: ActiveRun, recording?: RunRecording): Promise<VerificationOutcome> {
    run.command = info.command;
    const timeoutMs = info.timeoutMs ?? this.config.verification?.timeoutMs ?? 10 * 60 * 1000;
    const runId = randomUUID();
    // Recorded before it starts (when the owner's facts are known): a server SIGKILLed mid-run leaves the record.
    if (recording && this.orphans) await recording.beforeStart({ runId, startedAt: new Date(this.clock.now()).toISOString(), owner: this.orphans.owner(), timeoutMs });
    const started = this.clock.now();
    // Progress goes to whoever waits for the run now (nobody, after a "running" answer).
    const stopProgress = this.timers.every(PROGRESS_INTERVAL_MS, () => {
      const s = Math.max(0, this.clock.now() - started) / 1000;
      for (const listener of run.listeners) listener(Math.round(s * 10) / 10, undefined, verificationProgress(info.command, s, run.lastLine));
    });
    let result: CommandResult;
    this.runIds.add(runId);
    try {
      result = await this.runner.run({
        command: info.command,
        cwd,
        timeoutMs,
        marker: runId,
        onStarted: (pid) => recording?.started(pid),
        signal: run.controller.signal,
        onOutput: (line) => (run.lastLine = line),
        maxOutputBytes: this.config.outputTailBytes,
      });
    } catch (e) {
      if (!(e instanceof CommandFailedError)) throw e;
      result = { exitCode: null, signal: null, durationMs: 0, stdout: '', stderr: e.message, truncated: false, timedOut: false, cancelled: false };
    } finally {
      stopProgress();
      this.runIds.delete(runId);
    }
    return {
      command: info.command,
      ranBy: 'server',
      cwd,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      cancelled: result.cancelled,
      durationMs: result.durationMs,
      stdoutTail: result.stdout,
      stderrTail: result.stderr,
      truncated: result.truncated,
      verified: result.exitCode === 0 && !result.timedOut && !result.cancelled,
      timeoutMs,
      runId,
    };
  }
}
