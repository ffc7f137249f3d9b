import type { McpClientPool } from '../ports/mcp-client-pool';

/** What a run needs from its host. */
export interface GraphRunDeps {
  mcpClientPool?: McpClientPool;
  /** Milliseconds since the epoch (record times). */
  now: () => number;
  /**
   * The most bytes one run's history may hold (see ExecutionHistory.byteSize); past it the run ends with an
   * execution_limit error naming the cap. Default 1 GiB.
   */
  maxHistoryBytes: number;
  /** The largest result a run may return, as JSON text in bytes; larger is an execution_limit error. Default 16 MiB. */
  maxResultBytes: number;
  /** Lets other work run (pings, cancellations, other runs). Default: setImmediate. */
  yieldToEventLoop: () => Promise<void>;
  /** The run yields after this much busy time. Default 4 ms: time-sliced, not per node. */
  yieldEveryMs: number;
}
