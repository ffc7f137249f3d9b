import type { Sampler } from './sampler';

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
}

/** A context for calls made outside the RPC layer (CLI, tests): never cancelled, progress ignored, no sampler. */
export function noopCallContext(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, progress: () => undefined };
}
