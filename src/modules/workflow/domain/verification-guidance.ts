/*
 * The texts of verification steps (a command the server runs, or hands to the agent): the task text by who runs it,
 * progress while it runs, the blocked section when it fails, a cancelled run. The rest of the workflow module's prose
 * is in guidance.ts.
 */

/** How a verification step is answered: the server runs its command here, or the agent does (and why). */
export type VerificationMode = { server: true } | { server: false; reason: string };

/** What each reason the server does not run a verification command means, for the agent. */
const AGENT_REASONS: Record<string, string> = {
  disabled: 'the operator turned server-run verification off (--agent-verification)',
  no_run_scope: "your identity lacks the 'run' scope",
  no_workspace: 'no workspace is known for this run (workflow_next takes workspacePath; a session its workspacePath)',
  workspace_outside_roots: 'the workspace is outside the folders your identity may reach',
};

export function agentVerificationReason(reason: string): string {
  return AGENT_REASONS[reason] ?? reason;
}

/** The task text of a verification step, by mode (WorkRail's own text is what the agent gets when it runs the command). */
export function verificationTaskText(command: string, mode: VerificationMode, agentPrompt: string, guidance: string | undefined, stateless: boolean): string {
  const call = stateless ? 'workflow_next with this completionId appended' : 'workflow_continue';
  if (mode.server) {
    return [
      `The server verifies the previous step: when you call ${call}, it runs this command in the workspace itself and moves on only if it exits 0.`,
      `\`\`\`bash\n${command}\n\`\`\``,
      'Do not run it yourself to complete this step (you may, to check first). A failure answers `blocked` on this step with the exit code and the output tails; fix the cause, then call again.',
      ...(guidance ? [guidance] : []),
    ].join('\n\n');
  }
  return `${agentPrompt}\n\nThe server does not run this command here: ${agentVerificationReason(mode.reason)}. Run it yourself and report its exit code and output in your notes; this step is recorded as unverified.`;
}

/** The progress message while a verification command runs. */
export function verificationProgress(command: string, seconds: number, lastLine: string | undefined): string {
  return `verifying \`${command}\`: running ${seconds.toFixed(0)}s${lastLine ? `: ${lastLine}` : ''}`;
}

/**
 * A verification command still running when the call stopped waiting (`waitSeconds`): what to do next. Nothing is
 * recorded yet; the command goes on.
 */
export function verificationRunningSection(command: string, seconds: number, lastLine: string | undefined): string {
  return [
    `## Still running`,
    `The verification command \`${command}\` has been running for ${seconds.toFixed(0)}s${lastLine ? ` (last output: ${lastLine})` : ''}. It goes on without you: call workflow_continue again with the same continueToken to wait for it (up to waitSeconds more) or to get its result. Do not start it again yourself.`,
  ].join('\n');
}

/** The fields of a verification outcome the texts read. */
export interface VerificationOutcomeText {
  command: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdoutTail: string;
  stderrTail: string;
  timeoutMs?: number;
}

/** The one-line reason a verification run failed (the blocker's message). */
export function verificationFailedMessage(o: VerificationOutcomeText): string {
  const how = o.timedOut
    ? `was killed at its time limit (${Math.round((o.timeoutMs ?? o.durationMs) / 1000)} s) with everything it started`
    : o.exitCode === null
      ? `was ended by ${o.signal ?? 'a failure to start'}`
      : `exited ${o.exitCode}`;
  return `verification command \`${o.command}\` ${how} after ${o.durationMs} ms`;
}

/** The section a failed verification adds to the blocked answer: the tails and the step's guidance. */
export function verificationFailedSection(o: VerificationOutcomeText, guidance: string | undefined): string {
  const tail = (label: string, text: string) => {
    const lines = text.trimEnd().split('\n');
    const shown = lines.slice(-40).join('\n');
    return text.trim() ? `${label}${lines.length > 40 ? ` (last 40 of ${lines.length} lines)` : ''}:\n\`\`\`\n${shown}\n\`\`\`` : `${label}: (empty)`;
  };
  return [`## Verification failed\n${verificationFailedMessage(o)}.`, tail('stderr', o.stderrTail), tail('stdout', o.stdoutTail), ...(guidance ? [`## What to check\n${guidance}`] : [])].join('\n\n');
}

/** A cancelled verification call: what happened and what to do. */
export function verificationCancelled(completionId: string, stateless: boolean): string {
  return `the verification command of '${completionId}' was cancelled and its process tree killed; no attempt was counted — call ${stateless ? 'workflow_next' : 'workflow_continue'} again to run it`;
}
