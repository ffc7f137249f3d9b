import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import { InputRequest } from '../kernel/call-input';
import type { Logger } from '../kernel/logger';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import type { ModernCallHost } from './modern-call-host';

/**
 * A 2026-07-28 `tools/call` of a tool declared `longRunning: { promoted: true }` by a client that declares the tasks
 * extension: the call runs as a plain one whose context offers `promoteToTask()`. Until the use case calls it, the
 * request's cancellation and progress are the call's, and an `input_required` question is asked as usual; when it
 * does, the task is created (durably, as any task), the request is answered with its CreateTaskResult, and the rest of
 * the same run is the task's: its signal aborts on `tasks/cancel` or shutdown, its progress messages are the task's
 * statusMessage, its answer the task's result. A call that never promotes itself answers directly, as today.
 */
export async function promotableToolCall(
  def: ToolDefinition,
  args: unknown,
  ctx: ServerContext,
  host: ModernCallHost,
  logger?: Logger,
): Promise<CallToolResult | Record<string, unknown>> {
  const identity = host.identity(ctx);
  const seam = await host.state.seam(ctx, { tool: def.name, caller: identity.name, args });
  // The call's own signal: the request's until it is a task, the task's after (the answered request is done with).
  const controller = new AbortController();
  let task: { report: (message: string) => void } | undefined;
  let answerWithTask: (created: Record<string, unknown>) => void = () => undefined;
  const created = new Promise<Record<string, unknown>>((resolve) => (answerWithTask = resolve));
  /** The task's creation, once the use case promoted the call: its CreateTaskResult, undefined when it failed. */
  let creation: Promise<Record<string, unknown> | undefined> | undefined;
  let call!: Promise<CallToolResult | Record<string, unknown>>;
  call = host.run(
    ctx,
    async (callCtx) => {
      const onRequestAbort = () => {
        if (!task) controller.abort(callCtx.signal.reason);
      };
      if (callCtx.signal.aborted) onRequestAbort();
      else callCtx.signal.addEventListener('abort', onRequestAbort, { once: true });
      let promoted = false;
      const promote = (): boolean => {
        if (promoted) return true;
        promoted = true;
        creation = host.state.tasks
          .start({
            tool: def.name,
            owner: identity.name,
            track: host.calls,
            run: (signal, report) => {
              task = { report };
              if (signal.aborted) controller.abort(signal.reason);
              else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
              return call as Promise<Record<string, unknown>>;
            },
          })
          .then(
            (t) => (answerWithTask(t), t),
            (e) => {
              // The task could not be created (its store failed): the call goes on and answers directly.
              logger?.warn('cannot make a call a task; it answers directly', { tool: def.name, err: (e as Error).message });
              return undefined;
            },
          );
        return true;
      };
      const own: CallContext = {
        get signal() {
          return controller.signal;
        },
        progress: (value, total, message) => {
          if (task) task.report(message ?? (total !== undefined ? `${value} of ${total}` : `${value}`));
          else callCtx.progress(value, total, message);
        },
        identity: callCtx.identity,
        ...(callCtx.client !== undefined ? { client: callCtx.client } : {}),
        ...(callCtx.clientRoots ? { clientRoots: callCtx.clientRoots } : {}),
        ...(callCtx.sampler ? { sampler: callCtx.sampler } : {}),
        ...(callCtx.input ? { input: callCtx.input } : {}),
        promoteToTask: promote,
      };
      try {
        return await host.dispatcher.callTool(def, args, own);
      } catch (e) {
        // A question asked before the call became a task is the request's; after, nobody can be asked (the task fails).
        if (e instanceof InputRequest && !task) return seam.ask(e);
        throw e;
      } finally {
        callCtx.signal.removeEventListener('abort', onRequestAbort);
      }
    },
    seam,
  );
  const first = await Promise.race([call.then((result) => ({ result }), (error: unknown) => ({ error })), created.then((createdTask) => ({ createdTask }))]);
  if ('createdTask' in first) {
    // The run goes on as the task's; its failures are the task's (ExtensionTasks records them).
    call.catch(() => undefined);
    return first.createdTask;
  }
  // Promoted, but the run ended before the task was written: the client is told of the task all the same (its result
  // is the task's), so a promoted call always answers one way.
  const lateTask = creation ? await creation : undefined;
  if (lateTask) return lateTask;
  if ('error' in first) throw first.error;
  return first.result;
}
