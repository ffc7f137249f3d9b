import type { ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../kernel/call-context';
import type { CallInput } from '../kernel/call-input';
import type { Identity } from '../kernel/identity';
import type { Logger } from '../kernel/logger';
import type { Sampler } from '../kernel/sampler';
import type { CallTracker } from '../kernel/shutdown-coordinator';
import type { ProtocolState } from './protocol-state';
import type { ToolDispatcher } from './tool-dispatcher';

/** What a modern tools/call needs from the session's server. */
export interface ModernCallHost {
  state: ProtocolState;
  dispatcher: ToolDispatcher;
  calls: CallTracker;
  identity(ctx: ServerContext): Identity;
  /** Runs `fn` with the request's call context (its signal, progress, identity), the seam's input and sampler added. */
  run<T>(ctx: ServerContext, fn: (callCtx: CallContext) => Promise<T>, seam: { input?: CallInput; sampler?: Sampler }): Promise<T>;
  logger?: Logger;
  /** A call context for a task's run: the task's signal and progress sink instead of the request's. */
  taskContext(ctx: ServerContext, signal: AbortSignal, progress: CallContext['progress']): CallContext;
}

