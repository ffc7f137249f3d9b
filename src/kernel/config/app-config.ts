/** The modules a server can serve; `--modules` / WORKGRAPH_MODULES pick some of them. */
export const MODULE_NAMES = ['workflow', 'graph', 'tasks', 'knowledge'] as const;
export type ModuleName = (typeof MODULE_NAMES)[number];

/** A workflow source folder, in override order (later sources override earlier ones by workflow id). */
export interface WorkflowSource {
  dir: string;
  /** Label reported by workflow_list: `bundled`, `project`, `env`, `flag`. */
  source: string;
}

/**
 * Resolved configuration of one server or CLI process (flags beat environment variables beat defaults; see
 * `src/cli/resolve-config.ts`).
 */
export interface AppConfig {
  /** workgraph's package version. */
  version: string;
  /** Workflow folders in override order: bundled, ./workflows, WORKGRAPH_WORKFLOWS_PATH, --workflows. */
  workflowSources: WorkflowSource[];
  /** Graph files or folders (--graphs, WORKGRAPH_GRAPHS_PATH). Default none. */
  graphPaths: string[];
  /** Default `$XDG_DATA_HOME/workgraph` or `~/.local/share/workgraph`. */
  dataDir: string;
  /** Operator roots (--allow-root, WORKGRAPH_ALLOWED_ROOTS): client roots can only narrow them. Empty means: client roots, else home + temp. */
  allowedRoots: string[];
  /** pino level. Default `info`. */
  logLevel: string;
  /**
   * Knowledge backups pruning (defaults: 90 days, 50 files) and the PostgreSQL search cache's byte budget per process
   * (WORKGRAPH_SEARCH_CACHE_MB; default 128 MiB; 0: no cache, docs/postgres.md "Knowledge graph").
   */
  knowledge: { backupMaxAgeDays: number; backupMaxCount: number; searchCacheBytes?: number };
  /** Graph runs recorded in `<data-dir>/graph-runs/` per tool (env WORKGRAPH_GRAPH_RUNS_KEEP; 0 records none). Default 20. */
  graphRunsPerTool: number;
  /**
   * PostgreSQL instead of the data dir for the stores that support it (--database-url, WORKGRAPH_DATABASE_URL).
   * Default: none (files). `poolSize` default 10 (--database-pool-size).
   */
  database?: { url: string; poolSize: number };
  /** Workflow cache TTL in ms (invalidated earlier when a file changes). Default 5,000. */
  workflowCacheTtlMs: number;
  /**
   * MCP resource subscriptions one client session may hold (`--max-subscriptions`, WORKGRAPH_MAX_SUBSCRIPTIONS);
   * beyond it `resources/subscribe` is refused with `resource_limit`. Default 1,000.
   */
  maxSubscriptions: number;
  /** Bytes of each output stream's tail in a validate_task_loop answer (--output-tail, WORKGRAPH_OUTPUT_TAIL). Default 8 KiB. */
  outputTailBytes: number;
  /** How long a task's claim holds without a call of its claimant (--claim-ttl, WORKGRAPH_CLAIM_TTL, config `claimTtl`). Default 30 minutes. */
  claimTtlMs?: number;
  /**
   * Durable workflow sessions. `maxBlockedAttempts` (default 3, --max-blocked-attempts): blocked attempts in a row on
   * one step before the session needs a person. `completedRetentionDays` (default 30, --session-retention-days):
   * completed sessions are pruned that long after completion; unfinished ones are kept. `artifactsMaxBytes` (default
   * 1 MiB, --session-artifacts-mb): the largest `artifacts` of one output, as JSON; `logMaxBytes` (default 64 MiB,
   * --session-log-mb): the largest session log — a continue that would pass it is refused (limit_exceeded).
   */
  sessions: { maxBlockedAttempts: number; completedRetentionDays: number; artifactsMaxBytes?: number; logMaxBytes?: number };
  /**
   * Workflow verification steps (a step's `verification {command}`). `maxAttempts` (default 5,
   * --max-verification-attempts): failed runs in a row before the step needs a person; `timeoutMs` (default 10
   * minutes, --verification-timeout): a command's time limit unless the step sets `timeout_ms`; `agentOnly` (default
   * false, --agent-verification): never run the commands on the server — hand them to the agent, marked unverified.
   */
  verification?: { maxAttempts: number; timeoutMs: number; agentOnly: boolean };
  /**
   * The modules whose tools are served (`--modules`, WORKGRAPH_MODULES, comma-separated). Default all four. The
   * plain JSON-RPC workflow methods are answered only when `workflow` is served.
   */
  modules: ModuleName[];
  /**
   * `--only-graphs`: serve the graph files' tools and graph_inspect only, under the first graph file's own server
   * name/version/title/instructions (what `mcpgraph -g FILE` serves). Default false.
   */
  onlyGraphs: boolean;
  /**
   * `--graph-authoring` (WORKGRAPH_GRAPH_AUTHORING=1, config `graphAuthoring`): serve the graph module's authoring tools
   * (graph server metadata, graph tool list/get, JSONata and JSON Logic testers). Default false: none is listed.
   */
  graphAuthoring: boolean;
  /**
   * MCP Apps views (docs/mcp-apps.md): `enabled` — tools announce their `ui://workgraph/…` view to clients that
   * declare the `io.modelcontextprotocol/ui` extension, which can read those resources (default true; `--no-ui`,
   * WORKGRAPH_UI=0, config `ui: false`); `actions` — the views offer their actions (reset a task, release a claim,
   * approve a step), as tool calls through the host (`--allow-actions`, config `allowActions`; default false: read-only,
   * the dashboard's policy).
   */
  ui: { enabled: boolean; actions: boolean };
  /** `--mcp-config FILE` (repeatable; mcpgraph's `-m`): MCP server definitions merged into every graph's servers. */
  mcpConfigFiles: string[];
  /**
   * How long in-flight calls may finish once shutdown starts (signal, end of stdin) before they are cancelled
   * (`--shutdown-grace` seconds, WORKGRAPH_SHUTDOWN_GRACE). Default 10,000 ms.
   */
  shutdownGraceMs?: number;
  /**
   * Memory bounds of graph runs, in bytes: `historyMaxBytes` — all finished runs kept inspectable together, oldest
   * dropped first (`--graph-history-mb`, WORKGRAPH_GRAPH_HISTORY_MB; default 256 MiB); `runHistoryMaxBytes` — one run's
   * history, past it the run ends with execution_limit (`--graph-run-history-mb`; default 1 GiB); `resultMaxBytes` —
   * a run's result as JSON (`--graph-result-mb`; default 16 MiB).
   */
  graph?: { historyMaxBytes: number; runHistoryMaxBytes: number; resultMaxBytes: number };
}
