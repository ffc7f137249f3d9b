import { inject, injectable } from 'tsyringe';
import { requireClaimant, TaskStatus, type TaskNode, type TaskRunResult } from '../../domain';
import type { PlanChanges } from '../services/plan-changes';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import { noopCallContext, type CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { Clock, Timers } from '../../../../kernel/clock';
import type { CommandResult } from '../../../../kernel/command-runner';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import { answerNode, loadProjectGraph, requireNode } from '../services/task-graph-views';
import type { ActiveValidationRun } from '../services/validation-run-registry';
import type { RunVerdict, ValidationRunService } from '../services/validation-run';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { validateTaskLoopSchemas } from '../tasks.tool-schemas';

/** How long one call waits for the command before answering "still running": 45 s (MCP clients give up at 60 s). */
export const DEFAULT_WAIT_SECONDS = 45;
/** Progress notifications while waiting: about one per second. */
const PROGRESS_INTERVAL_MS = 1_000;

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type ValidateTaskLoopInput = ToolInput<typeof validateTaskLoopSchemas>;

/** The command's outcome as answered: the runner's result without `timedOut`/`cancelled` (the message and logs say those). */
export type ValidationCommandResult = Omit<CommandResult, 'timedOut' | 'cancelled'>;

/** The final answer of a validation run. */
export interface ValidationFinalAnswer {
  validation_passed: boolean;
  message: string;
  /** The attempt number of the run this answer is about. */
  attempt: number;
  /** True when this is a finished run's result given again (it ended while nobody waited, or the task is COMPLETED/FAILED). */
  replayed: boolean;
  /** null when the node has no validation_command (nothing was run). */
  result: ValidationCommandResult | null;
  /** The node, with only this attempt's record in error_logs. */
  node: TaskNode;
  /** Dependents that became READY. */
  unlocked: string[];
  revision: number;
}

/** The answer when the command outlived `waitSeconds`; call again to wait for the same run. */
export interface ValidationRunningAnswer {
  validation_passed: null;
  running: true;
  /** The attempt number of the run in progress. */
  attempt: number;
  message: string;
  revision: number;
}

export type ValidateTaskLoopOutput = ValidationFinalAnswer | ValidationRunningAnswer;

/**
 * `validate_task_loop`: answers with the node's pending result when there is one, else waits for the run in progress
 * or starts the next one (IN_PROGRESS or RETRYING → VALIDATING; see {@link ValidationRunService}). A call waits at
 * most `waitSeconds`; the run goes on after a `running: true` answer and its result is kept on the node.
 */
@injectable()
export class ValidateTaskLoop implements UseCase<ValidateTaskLoopInput, ToolOutput<typeof validateTaskLoopSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.ValidationRunService) private readonly runs: ValidationRunService,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Timers) private readonly timers: Timers,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: ValidateTaskLoopInput, ctx: CallContext = noopCallContext()): Promise<ValidateTaskLoopOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    // A confined caller may not join (or hear of) a run in another identity's project: checked before the run table.
    // Another agent's claimed task is refused before anything runs or is waited for.
    const { graph } = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    const node = requireNode(graph, input.nodeId);
    requireClaimant(node, who, this.clock.now(), 'validate_task_loop');
    let run = this.runs.active(projectId, input.nodeId);
    if (!run) {
      const pending = pendingResult(node);
      if (pending) {
        const revision = await this.runs.markDelivered(projectId, node.id, pending.run_id);
        return finalAnswer(node, pending, [], true, revision ?? graph.revision);
      }
      run = this.runs.active(projectId, input.nodeId) ?? this.runs.start(projectId, input.nodeId, who);
    }
    const verdict = await this.waitFor(run, (input.waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000, ctx);
    if (!verdict) {
      const seconds = Math.max(0, this.clock.now() - run.startedAt) / 1000;
      const { attempt, revision } = await this.attemptOf(projectId, input.nodeId);
      return { validation_passed: null, running: true, attempt, message: TaskMessages.running(input.nodeId, seconds, run.lastLine, attempt), revision };
    }
    const last = verdict.node.last_run!;
    const revision = await this.runs.markDelivered(projectId, input.nodeId, last.run_id);
    return finalAnswer(verdict.node, last, verdict.unlocked, false, revision ?? verdict.revision);
  }

  /** Waits for the run at most `waitMs` (undefined when it is still going), sending progress about every second. */
  private async waitFor(run: ActiveValidationRun<RunVerdict>, waitMs: number, ctx: CallContext): Promise<RunVerdict | undefined> {
    // The caller's abort (client cancellation, shutdown) cancels the run: its process tree is killed.
    const onAbort = () => run.controller.abort();
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const stopProgress = this.timers.every(PROGRESS_INTERVAL_MS, () => {
      const s = Math.max(0, this.clock.now() - run.startedAt) / 1000;
      ctx.progress(Math.round(s * 10) / 10, undefined, TaskMessages.progress(s, run.lastLine));
    });
    let stopTimer = () => undefined as void;
    try {
      return await Promise.race([run.promise, new Promise<undefined>((resolve) => (stopTimer = this.timers.after(Math.max(0, waitMs), () => resolve(undefined))))]);
    } finally {
      stopProgress();
      stopTimer();
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  /** The attempt number of the run in progress (the node's count of finished attempts + 1). */
  private async attemptOf(projectId: string, nodeId: string): Promise<{ attempt: number; revision: number }> {
    const graph = await this.store.load(projectId);
    const node = graph?.nodes.find((n) => n.id === nodeId);
    return { attempt: node ? node.current_attempt + 1 : 0, revision: graph?.revision ?? 0 };
  }
}

/**
 * A finished run's result that a call must be given instead of starting anything: one that no caller received yet
 * (it ended after a `running: true` answer), or — on a COMPLETED or FAILED task, where no new attempt can start —
 * the last one, to every caller. On RETRYING, once delivered, the next call starts the next attempt.
 */
function pendingResult(node: TaskNode): TaskRunResult | undefined {
  const last = node.last_run;
  if (!last || last.run_id !== node.validation_run_id) return undefined;
  if (node.status === TaskStatus.Completed || node.status === TaskStatus.Failed) return last;
  if (node.status === TaskStatus.Retrying && !last.delivered) return last;
  return undefined;
}

function finalAnswer(node: TaskNode, run: TaskRunResult, unlocked: string[], replayed: boolean, revision: number): ValidationFinalAnswer {
  return {
    validation_passed: run.passed,
    message: replayed ? TaskMessages.replay(node, run) : TaskMessages.verdict(node, run, unlocked),
    attempt: run.attempt,
    replayed,
    result: run.command_ran
      ? { exitCode: run.exit_code, signal: run.signal, durationMs: run.duration_ms, stdout: run.stdout_tail, stderr: run.stderr_tail, truncated: run.truncated }
      : null,
    node: answerNode(node, run.attempt),
    unlocked,
    revision,
  };
}
