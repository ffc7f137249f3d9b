import { inject, injectable } from 'tsyringe';
import { CancelledError, CommandFailedError, ConflictError } from '../../../../kernel/errors';
import {
  applyTaskEvent,
  isStaleValidation,
  TaskStatus,
  type TaskEvent,
  type TaskGraph,
  type TaskNode,
  type TaskTransition,
} from '../../domain';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import { noopCallContext, type CallContext } from '../../../../kernel/call-context';
import type { Clock } from '../../../../kernel/clock';
import type { CommandResult, CommandRunner } from '../ports/command-runner';
import type { Logger } from '../../../../kernel/logger';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { loadProjectGraph, requireNode, timeOf } from '../services/task-graph-views';
import { ValidationRunRegistry, type ActiveValidationRun } from '../services/validation-run-registry';

/** How long one call waits for the command before answering "still running": 45 s (MCP clients give up at 60 s). */
export const DEFAULT_WAIT_SECONDS = 45;
/** Progress notifications while waiting: about one per second. */
const PROGRESS_INTERVAL_MS = 1_000;
/** Output kept per stream in a node's error_logs (the answer itself carries up to 64 KiB): 4 KiB. */
const ERROR_LOG_TAIL_CHARS = 4 * 1024;

export interface ValidateTaskLoopInput {
  /** Project name or id. */
  project: string;
  nodeId: string;
  /** Longest wait in this call before answering `running: true`. Default 45. */
  waitSeconds?: number;
}

/** The command's outcome as answered: the runner's result without `timedOut`/`cancelled` (the message and logs say those). */
export type ValidationCommandResult = Omit<CommandResult, 'timedOut' | 'cancelled'>;

/** The final answer of a validation run. */
export interface ValidationFinalAnswer {
  validation_passed: boolean;
  message: string;
  /** null when the node has no validation_command (nothing was run). */
  result: ValidationCommandResult | null;
  node: TaskNode;
  /** Dependents that became READY. */
  unlocked: string[];
}

/** The answer when the command outlived `waitSeconds`; call again to wait for the same run. */
export interface ValidationRunningAnswer {
  validation_passed: null;
  running: true;
  message: string;
}

export type ValidateTaskLoopOutput = ValidationFinalAnswer | ValidationRunningAnswer;

/**
 * `validate_task_loop`: IN_PROGRESS → VALIDATING (recorded first, compare-and-swap under the lock), then runs the
 * node's validation_command in the project root OUTSIDE the lock, and records the verdict with a second
 * compare-and-swap: exit 0 → COMPLETED (dependents unlocked); failure or timeout → RETRYING or FAILED, with the
 * attempt in error_logs; cancellation → back to IN_PROGRESS without using an attempt.
 *
 * The run lives in the {@link ValidationRunRegistry}, not in the call: a call waits at most `waitSeconds`, and a
 * later call on the same node waits for the same run (or gets its answer once it has ended).
 */
@injectable()
export class ValidateTaskLoop implements UseCase<ValidateTaskLoopInput, ValidateTaskLoopOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.CommandRunner) private readonly runner: CommandRunner,
    @inject(TasksTokens.ValidationRunRegistry) private readonly runs: ValidationRunRegistry<ValidationFinalAnswer>,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: ValidateTaskLoopInput, ctx: CallContext = noopCallContext()): Promise<ValidateTaskLoopOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const key = ValidationRunRegistry.keyOf(projectId, input.nodeId);
    let run = this.runs.activeRun(key);
    if (!run) {
      const { graph } = await loadProjectGraph(this.store, input.project);
      const node = requireNode(graph, input.nodeId);
      // The run this node last finished may have ended while nobody waited: answer with its verdict.
      const done =
        node.status === TaskStatus.Completed || node.status === TaskStatus.Retrying || node.status === TaskStatus.Failed
          ? this.runs.finishedAnswer(key, node.validation_run_id)
          : undefined;
      if (done) return done;
      run = this.runs.activeRun(key) ?? this.startRun(projectId, input.nodeId, key);
    }
    return this.waitFor(run, input.nodeId, (input.waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000, ctx);
  }

  private startRun(projectId: string, nodeId: string, key: string): ActiveValidationRun<ValidationFinalAnswer> {
    const startedAt = this.clock.now();
    const runId = `${startedAt.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    return this.runs.start(key, runId, startedAt, (signal, setLastLine) =>
      this.validate(projectId, nodeId, runId, signal, setLastLine),
    );
  }

  /** The whole run: record VALIDATING, run the command, record the verdict. */
  private async validate(
    projectId: string,
    nodeId: string,
    runId: string,
    signal: AbortSignal,
    setLastLine: (line: string) => void,
  ): Promise<ValidationFinalAnswer> {
    const begun = await this.store.update(projectId, (graph) => this.begin(graph, nodeId, runId));
    if (begun.finished) return begun.finished;
    const node = begun.node;

    let result: CommandResult;
    try {
      result = await this.runner.run({
        command: node.validation_command!,
        cwd: begun.projectRoot,
        timeoutMs: node.timeout_ms,
        signal,
        onOutput: setLastLine,
      });
    } catch (e) {
      if (!(e instanceof CommandFailedError)) throw e;
      // A command that cannot even start is a failed attempt (the node must not stay VALIDATING).
      result = {
        exitCode: null, signal: null, durationMs: 0, stdout: '', stderr: e.message, truncated: false, timedOut: false, cancelled: false,
      };
    }
    this.logger.debug('validation command ended', {
      project: projectId, node: nodeId, exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, cancelled: result.cancelled,
    });

    if (result.cancelled) {
      await this.record(projectId, nodeId, { type: 'cancel', runId });
      throw new CancelledError(
        `validation of task '${nodeId}' was cancelled and its command killed; the task is back to IN_PROGRESS and no attempt was used`,
      );
    }
    const commandResult = toCommandResult(result);
    if (result.exitCode === 0) {
      const r = await this.record(projectId, nodeId, { type: 'pass', runId });
      return {
        validation_passed: true,
        message: passMessage(r.node, r.unlocked, commandResult),
        result: commandResult,
        node: r.node,
        unlocked: r.unlocked,
      };
    }
    const r = await this.record(projectId, nodeId, {
      type: 'fail',
      runId,
      log: {
        time: new Date(this.clock.now()).toISOString(),
        exit_code: result.exitCode,
        signal: result.signal,
        duration_ms: result.durationMs,
        timed_out: result.timedOut,
        stdout_tail: tail(result.stdout, ERROR_LOG_TAIL_CHARS),
        stderr_tail: tail(result.stderr, ERROR_LOG_TAIL_CHARS),
      },
    });
    return {
      validation_passed: false,
      message: failMessage(r.node, result),
      result: commandResult,
      node: r.node,
      unlocked: [],
    };
  }

  /** The first compare-and-swap: IN_PROGRESS (or a stale VALIDATING) → VALIDATING; no command → COMPLETED at once. */
  private begin(graph: TaskGraph, nodeId: string, runId: string) {
    const at = timeOf(this.clock.now());
    const transitions: TaskTransition[] = [];
    let current = graph;
    const node = requireNode(graph, nodeId);
    if (node.status === TaskStatus.Validating) {
      if (!isStaleValidation(node, at.ms)) {
        throw new ConflictError(
          `task '${nodeId}' is VALIDATING since ${node.validating_since} in another server process; call validate_task_loop ` +
            `again later (after its timeout_ms of ${node.timeout_ms} ms the run counts as interrupted)`,
          { node: nodeId, status: node.status },
        );
      }
      const recovered = applyTaskEvent(current, nodeId, { type: 'recover_interrupted' }, at);
      current = recovered.graph;
      transitions.push(...recovered.transitions);
    }
    const started = applyTaskEvent(current, nodeId, { type: 'begin_validation', runId }, at);
    current = started.graph;
    transitions.push(...started.transitions);
    let finished: ValidationFinalAnswer | undefined;
    if (!started.node.validation_command) {
      const passed = applyTaskEvent(current, nodeId, { type: 'pass', runId }, at);
      current = passed.graph;
      transitions.push(...passed.transitions);
      finished = {
        validation_passed: true,
        message:
          `task '${nodeId}' has no validation_command, so nothing was run; it is COMPLETED.` +
          (passed.unlocked.length ? ` Unlocked: ${passed.unlocked.join(', ')}.` : '') +
          ' Next: call get_ready_tasks.',
        result: null,
        node: passed.node,
        unlocked: passed.unlocked,
      };
    }
    return { graph: current, transitions, value: { node: started.node, projectRoot: graph.project_root, finished } };
  }

  /** The second compare-and-swap: the run's verdict, accepted only while the node is still in this run. */
  private record(projectId: string, nodeId: string, event: TaskEvent) {
    return this.store.update(projectId, (graph) => {
      const r = applyTaskEvent(graph, nodeId, event, timeOf(this.clock.now()));
      return { graph: r.graph, transitions: r.transitions, value: r };
    });
  }

  /** Waits for the run at most `waitMs`, sending progress about every second; the caller's abort cancels the run. */
  private async waitFor(
    run: ActiveValidationRun<ValidationFinalAnswer>,
    nodeId: string,
    waitMs: number,
    ctx: CallContext,
  ): Promise<ValidateTaskLoopOutput> {
    const onAbort = () => run.controller.abort();
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    const elapsed = () => Math.max(0, this.clock.now() - run.startedAt) / 1000;
    const ticker = setInterval(() => {
      const s = elapsed();
      ctx.progress(Math.round(s * 10) / 10, undefined, `running ${s.toFixed(0)}s` + (run.lastLine ? `: ${run.lastLine}` : ''));
    }, PROGRESS_INTERVAL_MS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const outcome = await Promise.race([
        run.promise.then((answer) => ({ answer })),
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, waitMs)))),
      ]);
      if (outcome) return outcome.answer;
      return {
        validation_passed: null,
        running: true,
        message:
          `the validation command of task '${nodeId}' is still running after ${elapsed().toFixed(0)}s` +
          (run.lastLine ? ` (last output: ${run.lastLine})` : '') +
          `; call validate_task_loop again with the same nodeId to wait for this run's result (no second run is started).`,
      };
    } finally {
      clearInterval(ticker);
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }
}

function toCommandResult(r: CommandResult): ValidationCommandResult {
  return { exitCode: r.exitCode, signal: r.signal, durationMs: r.durationMs, stdout: r.stdout, stderr: r.stderr, truncated: r.truncated };
}

function tail(text: string, max: number): string {
  return text.length > max ? text.slice(text.length - max) : text;
}

function passMessage(node: TaskNode, unlocked: string[], r: ValidationCommandResult): string {
  return (
    `validation passed on attempt ${node.current_attempt}/${node.max_attempts} (exit 0 in ${r.durationMs} ms); ` +
    `task '${node.id}' is COMPLETED.` +
    (unlocked.length ? ` Unlocked: ${unlocked.join(', ')}.` : '') +
    ' Next: call get_ready_tasks.'
  );
}

function failMessage(node: TaskNode, r: CommandResult): string {
  const how = r.timedOut
    ? `timed out after ${node.timeout_ms} ms and was killed`
    : r.exitCode !== null
      ? `exited with code ${r.exitCode}`
      : r.signal
        ? `was ended by ${r.signal}`
        : `could not be started (${r.stderr})`;
  const head = `validation failed on attempt ${node.current_attempt}/${node.max_attempts}: the command ${how}; `;
  if (node.status === TaskStatus.Failed) {
    return (
      head +
      `task '${node.id}' is FAILED (max_attempts reached). Read error_logs, fix the cause, then call reset_task_node ` +
      'to try again.'
    );
  }
  const left = node.max_attempts - node.current_attempt;
  return (
    head +
    `task '${node.id}' is RETRYING with ${left} attempt(s) left. Read stdout/stderr, fix the problem, then call ` +
    'start_task and validate_task_loop again.'
  );
}
