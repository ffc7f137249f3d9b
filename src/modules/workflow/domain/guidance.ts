import type { AssessmentAnswer, ContractAnswer } from './current-format/answer-parts';
import type { ResolvedStep } from './step-resolution';
import type { Workflow } from './types';

/*
 * Every text the workflow module hands an agent — the `guidance.prompt` of workflow_next and of the session tools,
 * blocked and complete answers, notes on the pinned workflow version — is written here, in one place, so the wording
 * stays consistent and the use cases read as steps rather than prose; the texts of verification steps beside it, in
 * verification-guidance.ts.
 */

/** A reason an output falls short, as the answers list it. */
export interface BlockerText {
  code: string;
  pointer: string;
  message: string;
  expected?: unknown;
}

/**
 * The `guidance.prompt` of workflow_next: markdown with one heading per part, in this order — `## Role` (when the
 * step has an agentRole), `## Task: <title>` (the prompt), `## Guidance` (the step's guidance list), `## Note` (loop
 * caps reached on the way), and `## When done` (what to append to completedSteps, and confirmations asked for).
 */
export function buildStepGuidance(step: ResolvedStep, notes: readonly string[] = [], more: StepGuidanceExtras = {}): string {
  const parts: string[] = [];
  if (more.followup) parts.push(`## Follow-up required\n${more.followup.trim()}\nDo the step again with this in mind, then send a new output for it.`);
  if (step.agentRole && step.agentRole.trim() !== '') parts.push(`## Role\n${step.agentRole.trim()}`);
  let task = `## Task: ${step.title}`;
  if (step.loop) task += `\n_${describeLoop(step.loop)}_`;
  parts.push(`${task}\n${(step.extras?.prompt ?? step.prompt).trim()}`);
  if (step.guidance && step.guidance.length > 0) parts.push(`## Guidance\n${step.guidance.map((g) => `- ${g}`).join('\n')}`);
  parts.push(...(more.sections ?? []));
  if (notes.length > 0) parts.push(`## Note\n${notes.map((n) => `- ${n}`).join('\n')}`);
  const done: string[] = [];
  if (step.askForFiles) done.push('- Ask the user for any files you need before you start.');
  const confirmation = step.extras ? step.extras.confirmation : step.requireConfirmation === true ? { by: 'user' } : undefined;
  if (confirmation?.by === 'coordinator') done.push('- Hand the result to the coordinating agent and wait for its verdict before you mark the step done.');
  else if (confirmation) done.push('- Ask the user to confirm the result before you mark the step done.');
  if (step.validationCriteria !== undefined) {
    done.push(`- Check your output with workflow_validate (stepId "${step.completionId}") before moving on.`);
  }
  done.push(
    more.sendsOutput
      ? `- Add "${step.completionId}" to completedSteps and call workflow_next again with the context and the output above.`
      : `- Add "${step.completionId}" to completedSteps and call workflow_next again with the context.`,
  );
  parts.push(`## When done\n${done.join('\n')}`);
  return parts.join('\n\n');
}

/** What an answer adds around the step's own text (current format: follow-up, delegations, output, metrics). */
export interface StepGuidanceExtras {
  /** An assessment follow-up: shown first. */
  followup?: string;
  /** Sections placed after the guidance list. */
  sections?: string[];
  /** The step expects an output with the completing call. */
  sendsOutput?: boolean;
}

/** The guidance when the workflow has no step left. */
export function buildCompletionGuidance(workflow: Workflow, notes: readonly string[] = []): string {
  const parts = [`## Complete\nWorkflow '${workflow.name ?? workflow.id}' is complete: every step that applies is done.`];
  if (notes.length > 0) parts.push(`## Note\n${notes.map((n) => `- ${n}`).join('\n')}`);
  return parts.join('\n\n');
}

function describeLoop(loop: NonNullable<ResolvedStep['loop']>): string {
  const here = `loop '${loop.id}', iteration ${loop.iteration + 1}`;
  const item = loop.item !== undefined ? ` (item: ${typeof loop.item === 'string' ? loop.item : JSON.stringify(loop.item)})` : '';
  return loop.parent ? `${here}${item}, inside ${describeLoop(loop.parent)}` : `${here}${item}`;
}

/** The section a blocked workflow_next answer starts with: what to fix, and how to resend. */
export function buildBlockedSection(blockers: readonly BlockerText[]): string {
  const lines = blockers.map((b) => `- ${b.code} at ${b.pointer}: ${b.message}`);
  return `## Blocked\nThe output sent for this step falls short. Keep its completionId last in completedSteps and resend output with these fixed:\n${lines.join('\n')}`;
}

/** The markdown the current format adds to guidance.prompt (delegations, output to send, metrics). */
export function currentFormatSections(step: ResolvedStep, contract: ContractAnswer | undefined, assessments: AssessmentAnswer[] | undefined): string[] {
  const parts: string[] = [];
  const delegations = step.extras?.delegations;
  if (delegations) {
    const lines = delegations.map((d) => {
      const bits = [`\`${d.workflowId}\`${d.goal ? `: ${d.goal}` : ''}`];
      if (d.modelTier) bits.push(`model tier ${d.modelTier}`);
      // A hint for the helper the agent spawns, as WorkRail documents it: nothing restricts the tools by it.
      if (d.allowedTools?.length) bits.push(`allowed tools (a hint, not enforced) ${d.allowedTools.join(', ')}`);
      if (d.args && Object.keys(d.args).length > 0) bits.push(`args ${JSON.stringify(d.args)}`);
      if (d.contextMapping) bits.push(`context ${JSON.stringify(d.contextMapping)}`);
      return `- ${bits.join('; ')}`;
    });
    parts.push(
      `## Parallel delegations\n${lines.length > 0 ? `Run these in parallel (each a workflow you start for a helper), then bring their results together yourself:\n${lines.join('\n')}` : 'No delegation applies in this context: do the step yourself.'}`,
    );
  }
  if (step.extras?.synthesis) parts.push(synthesisSection(step.extras.synthesis));
  const send: string[] = [];
  if (contract) {
    send.push(
      `- ${contract.required ? 'Required' : 'Optional'}: one \`${contract.kind}\` artifact (contract ${contract.contractRef}); step.outputContract.example shows a valid one, its schema: ${contract.schema}.`,
    );
  }
  for (const a of assessments ?? []) {
    send.push(`- Assessment \`${a.id}\`: a \`wr.assessment\` artifact rating ${a.dimensions.map((d) => `${d.id} (${d.levels.join(' | ')})`).join(', ')}.`);
  }
  if (send.length > 0) parts.push(`## Output to send\nWith the call that completes this step, send \`output: {notesMarkdown?, artifacts: [...]}\`:\n${send.join('\n')}`);
  if (step.hintsSection) parts.unshift(step.hintsSection);
  if (step.metricsFooter) parts.push(step.metricsFooter);
  return parts;
}

/** What a session's "When done" looks at in the step the engine handed out. */
export interface SessionStepFlags {
  askForFiles?: boolean;
  requireConfirmation?: boolean;
  hasValidation?: boolean;
  outputContract?: unknown;
  assessments?: unknown;
}

/**
 * A session step's guidance from workflow_next's: the same sections, but "When done" tells the agent to call
 * workflow_continue with its notes (the server keeps completedSteps and the context), after any `notes`.
 */
export function buildSessionStepGuidance(statelessPrompt: string, step: SessionStepFlags, notes: readonly string[] = []): string {
  const cut = statelessPrompt.lastIndexOf('\n\n## When done\n');
  const body = cut >= 0 ? statelessPrompt.slice(0, cut) : statelessPrompt;
  const done: string[] = [];
  if (step.askForFiles) done.push('- Ask the user for any files you need before you start.');
  if (step.requireConfirmation) done.push('- Ask for the confirmation this step requires before you continue.');
  done.push('- Call workflow_continue with the continueToken and `output: {notesMarkdown, artifacts?}` saying what you did (and `context` with only the variables you changed).');
  if (step.hasValidation || step.outputContract || step.assessments) done.push("- Your output is checked against the step's criteria; a `blocked` answer says exactly what is missing.");
  const extra = notes.length ? `\n\n## Note\n${notes.map((n) => `- ${n}`).join('\n')}` : '';
  return `${body}${extra}\n\n## When done\n${done.join('\n')}`;
}

/** The start of a blocked session answer's guidance: what was wrong, what to do (the step's own guidance follows it). */
export function buildBlockedHeader(blockers: readonly BlockerText[], exhausted: boolean, attempt: number, max: number): string {
  const lines = blockers.map((b) => `- ${b.message}${b.pointer && b.pointer !== '/notesMarkdown' ? ` (at ${b.pointer})` : ''}${b.expected ? ` (expected: ${typeof b.expected === 'string' ? b.expected : JSON.stringify(b.expected)})` : ''}`);
  return exhausted
    ? `## Blocked: attempts exhausted (${attempt} of ${max})\nStop and ask the person how to proceed: this step's output was refused ${attempt} times in a row. Show them these problems:\n${lines.join('\n')}\nA corrected output sent with the retryToken still advances the session.`
    : `## Blocked (attempt ${attempt} of ${max})\nThe output does not satisfy this step yet:\n${lines.join('\n')}\nFix it and call workflow_continue again with the retryToken.`;
}

/** The guidance when the session's workflow is complete. */
export function buildSessionCompleteGuidance(workflowName: string, summary: string): string {
  return `## Complete\nWorkflow '${workflowName}' is complete: every step that applies is done.\n\n## Summary\n${summary}`;
}

/** The note on a session whose workflow file changed since it started (it keeps running the pinned version). */
export function workflowChangedNote(workflowId: string, nowVersion: string, pinnedVersion: string): string {
  return `workflow '${workflowId}' changed since this session started (now version ${nowVersion}); this session keeps running the version it started with (${pinnedVersion}); start a new session for the new version`;
}

/** The note on a session whose workflow can no longer be loaded. */
export function workflowUnloadableNote(workflowId: string, reason: string): string {
  return `workflow '${workflowId}' can no longer be loaded (${reason}); this session keeps running the version it started with`;
}

/** A session answer's guidance with the pinned-version note, when there is one, as its last section. */
export function withWorkflowVersionNote(prompt: string, note: string | undefined): string {
  return note ? `${prompt}\n\n## Workflow version\n${note}` : prompt;
}

/** workflow_validate_json's last issue when more were found than it shows. */
export function moreIssuesNotShown(count: number): string {
  return `${count} more issue(s) not shown; fix these first`;
}

/** workflow_get's preview when the first step cannot be resolved with an empty context. */
export function firstStepNeedsContext(reason: string): string {
  return `the first step depends on the context: ${reason}`;
}

/** A workspace workflow replaces another source's workflow of the same id (workflow_list, workflow_start, workflow_get). */
export function workspaceShadowsNote(workflowId: string, shadowedSource: string, file?: string): string {
  return `workspace workflow '${workflowId}'${file ? ` (${file})` : ''} shadows the ${shadowedSource} workflow of the same id: this workspace gets its own file`;
}

/** A session's workspace lies outside the allowed roots: its own workflows are not read. */
export function workspaceOutOfReachNote(workspace: string, reason: string): string {
  return `the workflows of workspace ${workspace} are not read (${reason})`;
}

/** The guidance an audit below its bar sends the agent back to the audited step with. */
export function auditSentBackText(parentTitle: string, below: readonly { id: string; level: string; bar: string; criterion?: string }[], note: string | undefined): string {
  const lines = below.map((b) => `- \`${b.id}\`${b.criterion ? ` (${b.criterion})` : ''}: rated ${b.level}, needs at least ${b.bar}`);
  return `The audit of '${parentTitle}' found it below the bar:\n${lines.join('\n')}${note && note.trim() ? `\n\nThe auditor's note:\n${note.trim()}` : ''}\n\nDo '${parentTitle}' again with these fixed; its verification and audit follow again.`;
}

/** The synthesis section: each delegation with its goal and the slot its result is reported under. */
export function synthesisSection(rows: readonly { workflowId: string; goal?: string; slot: string }[]): string {
  if (rows.length === 0) return '## Delegation results\nNo delegation applied in this context: synthesize what the parallel step itself produced.';
  const lines = rows.map((r) => `- \`${r.slot}\`: ${r.goal ?? `Run ${r.workflowId}`} (workflow \`${r.workflowId}\`)`);
  return `## Delegation results\nBring together the result of each delegation, one heading per result slot in your notes:\n${lines.join('\n')}`;
}

/**
 * The confirmation a step's result needs before the step counts as done: the current format's rule as it applied
 * (`extras.confirmation`), or the classic `requireConfirmation: true` (by the person).
 */
export function stepConfirmation(step: ResolvedStep): { by: 'user' | 'coordinator'; reason?: string } | undefined {
  return step.extras ? step.extras.confirmation : step.requireConfirmation === true ? { by: 'user' } : undefined;
}

/** What the person (or the coordinating agent) is asked when a session step that needs confirmation is handed in. */
export function confirmationQuestion(title: string, by: 'user' | 'coordinator', notes: string | undefined): string {
  const who = by === 'coordinator' ? 'As the coordinating agent: accept' : 'Accept';
  const shown = notes && notes.trim() ? ` The agent reports: ${notes.trim().length > 600 ? `${notes.trim().slice(0, 597)}...` : notes.trim()}` : '';
  return `${who} the result of step "${title}" and let the workflow go on?${shown}`;
}

/** The blocker of a session step whose result was not confirmed. */
export function notConfirmedBlocker(title: string, by: 'user' | 'coordinator'): string {
  const who = by === 'coordinator' ? 'The coordinating agent' : 'The person';
  return `${who} did not confirm the result of step "${title}": ask what to change, redo the step and send the new output`;
}

/** The section a session answer starts with when an audit sent the run back to the audited step. */
export function sentBackSection(note: string): string {
  return `## Sent back by the audit\n${note}`;
}
