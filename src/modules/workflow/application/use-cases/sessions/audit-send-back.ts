import { sentBackSection } from '../../../domain/guidance';
import type { CallContext } from '../../../../../kernel/call-context';
import type { Workflow } from '../../../domain/types';
import { foldSessionEvents, SessionTree, type NodeState, type SessionEvent, type SessionState } from '../../../domain/sessions';
import type { SessionHistory } from '../../ports/session-store';
import type { SessionEngine } from '../../services/session-engine';
import { nodeAnswer, type SessionAnswer } from './session-answer';
import type { ToolInput } from '../../../../../kernel/tools/tool-schema';
import type { workflowContinueSchemas } from '../../workflow-session.tool-schemas';

/** What sending a step back needs: the call's engine, its event stamping, and where the run stands. */
export interface SendBackArgs {
  engine: SessionEngine;
  event: <E extends SessionEvent>(fields: Omit<E, 'at'> | Record<string, unknown>) => E;
  workflow: Workflow;
  state: SessionState;
  history: () => Promise<SessionHistory>;
  base: NodeState;
  pre: SessionEvent[];
  completionId: string;
  sentBack: { to: string; note: string };
  input: ToolInput<typeof workflowContinueSchemas>;
  extra: Partial<SessionAnswer>;
  ctx: CallContext | undefined;
}

/**
 * workflow_continue's audit send-back: an audit rated the audited step below its bar, so the run forks back to the
 * point where that step was handed out (the audited branch stays in the log), and the answer hands the step out again
 * with the auditor's note. Undefined when the log has no such point (the output then goes on as any other).
 */
export async function sendBack(a: SendBackArgs): Promise<{ events: SessionEvent[]; result: SessionAnswer } | undefined> {
  const { workflow, state, history, base, pre, completionId, sentBack, input, extra, ctx } = a;
  const tree = new SessionTree([...(await history()).events, ...pre]);
  const from = tree.advancedFrom(base.node, sentBack.to);
  const target = from !== undefined ? tree.stateAt(from) : undefined;
  if (from === undefined || !target) return undefined;
  const audit = {
    completionId,
    note: sentBack.note,
    ...(input.output?.notesMarkdown !== undefined ? { notesMarkdown: input.output.notesMarkdown } : {}),
    ...(input.output?.artifacts !== undefined ? { artifacts: input.output.artifacts } : {}),
  };
  const events = [...pre, a.event<SessionEvent>({ kind: 'forked', from, previousHead: base.node, via: 'audit', state: target, audit })];
  const after = foldSessionEvents(state, events) as SessionState;
  const result = await nodeAnswer(a.engine, workflow, after, after.head, 'advanced', { ...extra, sentBack: { to: sentBack.to, note: sentBack.note } }, {
    ctx,
    sections: [sentBackSection(sentBack.note)],
  });
  return { events, result };
}
