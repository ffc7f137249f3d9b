import { describeClaimant, type TaskNode, type TaskRunResult } from '../../domain';

/**
 * Every sentence the tasks module's answers say to an agent, in one place, so the wording stays consistent and each
 * use case reads as steps rather than prose. Each message says what happened and what to call next.
 */
export const TaskMessages = {
  claimed(node: TaskNode): string {
    const c = node.claim;
    return (
      TaskMessages.started(node) +
      (c ? ` It is claimed by ${describeClaimant(c)} until ${c.expires_at}; each of your calls on it renews the claim, release_task gives it up.` : '')
    );
  },

  nothingReady(total: number, completed: number, blocked: number): string {
    if (total === completed) return `nothing is ready: every task (${total}) is COMPLETED.`;
    return `nothing is ready: ${completed}/${total} tasks COMPLETED; ${blocked} unfinished task(s) are held (see blocked); call claim_next_task again later.`;
  },

  released(node: TaskNode): string {
    return `task '${node.id}' was released: it is ${node.status} (attempts kept: ${node.current_attempt}); any agent may start it.`;
  },

  edited(what: string, cascaded: readonly { id: string; status: string }[]): string {
    return what + (cascaded.length ? `; sent back: ${cascaded.map((c) => `${c.id} (${c.status})`).join(', ')}` : '') + '.';
  },

  started(node: TaskNode): string {
    return (
      `task '${node.id}' is IN_PROGRESS (attempt ${node.current_attempt + 1}/${node.max_attempts}). Do the work, then call ` +
      `validate_task_loop to ${node.validation_command ? `run \`${node.validation_command}\`` : 'complete it (it has no validation_command)'}.`
    );
  },

  reset(node: TaskNode, reverted: readonly string[]): string {
    return (
      `task '${node.id}' was reset to ${node.status}` +
      (reverted.length ? `; dependent task(s) ${reverted.join(', ')} went back to PENDING` : '') +
      (node.status === 'READY' ? '; call start_task to work on it again.' : '; it becomes READY when its dependencies are COMPLETED.')
    );
  },

  resetWhileRunning(nodeId: string): string {
    return `task '${nodeId}' cannot be reset: its validation command is running; wait for validate_task_loop to return`;
  },

  noCommand(nodeId: string, unlocked: readonly string[]): string {
    return (
      `task '${nodeId}' has no validation_command, so nothing was run; it is COMPLETED.` +
      (unlocked.length ? ` Unlocked: ${unlocked.join(', ')}.` : '') +
      ' Next: call get_ready_tasks.'
    );
  },

  /** The verdict of a run, for the caller that waited for it. */
  verdict(node: TaskNode, run: TaskRunResult, unlocked: readonly string[]): string {
    if (!run.command_ran) return TaskMessages.noCommand(node.id, unlocked);
    if (run.passed) {
      return (
        `validation passed on attempt ${run.attempt}/${node.max_attempts} (exit 0 in ${run.duration_ms} ms); ` +
        `task '${node.id}' is COMPLETED.` +
        (unlocked.length ? ` Unlocked: ${unlocked.join(', ')}.` : '') +
        ' Next: call get_ready_tasks.'
      );
    }
    const how = run.timed_out
      ? `timed out after ${node.timeout_ms} ms and was killed`
      : run.exit_code !== null
        ? `exited with code ${run.exit_code}`
        : run.signal
          ? `was ended by ${run.signal}`
          : `could not be started (${run.stderr_tail})`;
    const head = `validation failed on attempt ${run.attempt}/${node.max_attempts}: the command ${how}; `;
    if (node.status === 'FAILED') {
      return head + `task '${node.id}' is FAILED (max_attempts reached). Read error_logs, fix the cause, then call reset_task_node to try again.`;
    }
    const left = node.max_attempts - run.attempt;
    return (
      head +
      `task '${node.id}' is RETRYING with ${left} attempt(s) left. Read stdout/stderr, fix the problem, then call ` +
      'validate_task_loop again to start the next attempt.'
    );
  },

  /** A finished run's result handed out again: said so plainly, so it is never mistaken for a new run. */
  replay(node: TaskNode, run: TaskRunResult): string {
    const next =
      node.status === 'RETRYING'
        ? ' Call validate_task_loop again to start the next attempt.'
        : node.status === 'COMPLETED'
          ? ' Nothing was run now.'
          : ' Nothing was run now; call reset_task_node to try again.';
    return `result of attempt ${run.attempt} (run ${run.run_id}, ended ${run.finished_at}), given again: ` + TaskMessages.verdict(node, run, []) + next;
  },

  running(nodeId: string, seconds: number, lastLine: string | undefined, attempt: number): string {
    return (
      `the validation command of task '${nodeId}' (attempt ${attempt}) is still running after ${seconds.toFixed(0)}s` +
      (lastLine ? ` (last output: ${lastLine})` : '') +
      `; call validate_task_loop again with the same nodeId to wait for this run's result (no second run is started).`
    );
  },

  progress(seconds: number, lastLine: string | undefined): string {
    return `running ${seconds.toFixed(0)}s` + (lastLine ? `: ${lastLine}` : '');
  },

  cancelled(nodeId: string): string {
    return `validation of task '${nodeId}' was cancelled and its command killed; the task is back to IN_PROGRESS and no attempt was used`;
  },

  /** The command ended but its verdict could not be stored: the result goes to the caller inside the error. */
  verdictNotWritten(nodeId: string, passed: boolean, exitCode: number | null, cause: string): string {
    return (
      `validation of task '${nodeId}' ${passed ? 'passed (exit 0)' : `failed (exit ${exitCode ?? 'none'})`} but its verdict could ` +
      `not be written: ${cause}. The task stays VALIDATING and is recoverable at once: free the storage, then call ` +
      'validate_task_loop to run it again (or reset_task_node).'
    );
  },

  replaceWhileRunning(projectId: string, nodes: readonly string[]): string {
    return `project '${projectId}' cannot be replaced while task(s) ${nodes.join(', ')} are VALIDATING`;
  },
};
