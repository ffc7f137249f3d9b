import { LOCAL_IDENTITY, type Actor, type Identity } from './identity';
import type { ClientRoots } from './path-policy';
import type { Sampler } from './sampler';
import type { CallInput } from './call-input';

/**
 * What the caller of a use case offers it for one call. The RPC layer builds one per tool call; tests build their own
 * with {@link noopCallContext}.
 */
export interface CallContext {
  /** Aborted when the client cancels the request (notifications/cancelled) or the server shuts down. */
  readonly signal: AbortSignal;
  /** Reports progress; a no-op when the caller sent no progressToken. */
  progress(progress: number, total?: number, message?: string): void;
  /** The client's LLM through MCP sampling, when the client declared the capability. */
  readonly sampler?: Sampler;
  /**
   * The calling session's MCP roots, when its client offers them: the session's own trust boundary and workspace
   * fallback, handed over per call (never set process-wide, so two sessions of one server keep their own roots).
   */
  readonly clientRoots?: ClientRoots;
  /**
   * Who is calling: its name (the actor records keep), the roots it may reach and its scopes. Set by the server from
   * the request's verified token (HTTP) or as the local identity (stdio); nothing the client sends can widen it.
   */
  readonly identity: Identity;
  /**
   * The `clientInfo.name` the calling agent's MCP client gave — in `initialize`, or in a 2026-07-28 request's `_meta`
   * envelope — when known (kept beside the actor).
   */
  readonly client?: string;
  /**
   * Asking the caller for input within this call (MCP 2026-07-28 `input_required`): present only when the client can
   * be asked (the modern era, with the capability the question needs). A use case reads the answer a retried call
   * carries, or throws {@link InputRequest} to ask; without it, it answers as it always did.
   */
  readonly input?: CallInput;
  /**
   * Makes this call a task of the tasks extension from here on (docs/protocol-eras.md "Tasks"): present only for a
   * tool declared `longRunning: { promoted: true }` called by a 2026-07-28 client that declares the extension. The
   * tools/call is answered at once with the task id; what the use case does next runs as the task — its `progress`
   * becomes the task's statusMessage, `signal` aborts on `tasks/cancel` (or shutdown), what it returns is the task's
   * result. A use case calls it right before the part that runs long (a verification command); a call that never
   * does is answered as any other. Returns true: the caller now waits for the end, nobody holds a request open.
   */
  readonly promoteToTask?: () => boolean;
  /**
   * The calling client renders MCP Apps views (it declared the `io.modelcontextprotocol/ui` extension and views are
   * on: docs/mcp-apps.md): a use case may add what only its view draws to the result's `_meta` (ToolResultWithMeta),
   * which no other client gets. Absent for every other caller.
   */
  readonly showsViews?: boolean;
}

/** The actor a record made by this call keeps: the identity's name and the client's (the local identity without a context). */
export function actorOf(ctx: Pick<CallContext, 'identity' | 'client'> | undefined): Actor {
  const name = ctx?.identity.name ?? LOCAL_IDENTITY.name;
  return ctx?.client ? { name, client: ctx.client } : { name };
}

/**
 * A context for calls made outside the RPC layer (CLI, tests): never cancelled, progress ignored, no sampler, run as
 * the local identity unless another is given.
 */
export function noopCallContext(signal: AbortSignal = new AbortController().signal, identity: Identity = LOCAL_IDENTITY): CallContext {
  return { signal, progress: () => undefined, identity };
}
