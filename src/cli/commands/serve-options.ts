import type { OptionSpec } from './option-specs';

/** `--output-tail`: a whole number of bytes from 256 to 64 KiB (the runner keeps at most 64 KiB per stream). */
function parseOutputTail(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 256 || n > 64 * 1024) throw new Error(`expected a whole number of bytes from 256 to 65536, got '${value}'`);
  return n;
}

/** `serve`'s own options, beside the common ones (option-specs.ts). */
export const SERVE_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--shutdown-grace <seconds>',
    description: 'on SIGTERM/SIGINT/SIGHUP or end of stdin, how long in-flight calls may finish before they are cancelled (env WORKGRAPH_SHUTDOWN_GRACE; default 10)',
  },
  {
    flags: '--graph-history-mb <mib>',
    description: 'graph run history kept after runs end, all runs together; the oldest runs are dropped first (env WORKGRAPH_GRAPH_HISTORY_MB; default 256)',
  },
  { flags: '--graph-run-history-mb <mib>', description: "one graph run's history; past it the run ends with execution_limit (env WORKGRAPH_GRAPH_RUN_HISTORY_MB; default 1024)" },
  { flags: '--graph-runs-keep <n>', description: 'graph runs recorded in the data dir per tool, for the dashboard; 0 records none (env WORKGRAPH_GRAPH_RUNS_KEEP; default 20)' },
  { flags: '--session-artifacts-mb <mib>', description: "largest artifacts of one session step's output, as JSON; larger is limit_exceeded (env WORKGRAPH_SESSION_ARTIFACTS_MB; default 1)" },
  { flags: '--session-log-mb <mib>', description: "largest session event log; a workflow_continue past it is limit_exceeded (env WORKGRAPH_SESSION_LOG_MB; default 64)" },
  { flags: '--graph-result-mb <mib>', description: 'largest graph tool result, as JSON; larger is execution_limit (env WORKGRAPH_GRAPH_RESULT_MB; default 16)' },
  {
    flags: '--graph-authoring',
    description: 'serve the graph authoring tools: graph server metadata, graph tool list/get, JSONata and JSON Logic testers (env WORKGRAPH_GRAPH_AUTHORING=1; default off)',
  },
  { flags: '--output-tail <bytes>', description: "bytes of each output stream's tail in a validate_task_loop answer (env WORKGRAPH_OUTPUT_TAIL; default 8192)", parse: parseOutputTail },
  {
    flags: '--max-subscriptions <n>',
    description: 'MCP resource subscriptions one client session may hold; beyond it resources/subscribe is refused with resource_limit (env WORKGRAPH_MAX_SUBSCRIPTIONS; default 1000)',
  },
  {
    flags: '--claim-ttl <duration>',
    description: "how long a started task stays claimed by its agent without a call of theirs on it, e.g. 30m; then it is READY again (env WORKGRAPH_CLAIM_TTL; default 30m)",
  },
  {
    flags: '--max-verification-attempts <n>',
    description: 'failed verification commands in a row on one session step before it needs a person (env WORKGRAPH_MAX_VERIFICATION_ATTEMPTS; default 5)',
  },
  {
    flags: '--verification-timeout <duration>',
    description: "a workflow verification command's time limit unless the step sets timeout_ms, e.g. 10m (env WORKGRAPH_VERIFICATION_TIMEOUT; default 10m)",
  },
  {
    flags: '--agent-verification',
    description: 'never run workflow verification commands on the server: hand them to the agent, marked unverified (env WORKGRAPH_AGENT_VERIFICATION=1)',
  },
  { flags: '--http <[host:]port>', description: 'serve MCP over streamable HTTP at /mcp (env WORKGRAPH_HTTP; host default 127.0.0.1)' },
  { flags: '--stdio', description: 'with --http: serve stdio too (end of stdin then closes only the stdio session)' },
  { flags: '--auth-token-file <file>', description: 'bearer tokens, one per line (env WORKGRAPH_AUTH_TOKEN_FILE, or WORKGRAPH_AUTH_TOKENS=a,b)' },
  { flags: '--oauth-issuer <url>', description: 'also accept JWT access tokens of this OAuth authorization server (env WORKGRAPH_OAUTH_ISSUER; with --oauth-audience)' },
  { flags: '--oauth-audience <url>', description: "the audience those tokens must name: this server's public MCP URL (env WORKGRAPH_OAUTH_AUDIENCE)" },
  { flags: '--oauth-roots-claim <name>', description: "the access-token claim naming an OAuth identity's roots (env WORKGRAPH_OAUTH_ROOTS_CLAIM; default workgraph_roots)" },
  { flags: '--allowed-origins <origins>', description: 'extra allowed Origin values, comma-separated or repeated (env WORKGRAPH_ALLOWED_ORIGINS)', parse: 'csv' },
  { flags: '--allowed-hosts <hosts>', description: 'extra allowed Host values, comma-separated or repeated (env WORKGRAPH_ALLOWED_HOSTS)', parse: 'csv' },
  { flags: '--public-url <url>', description: 'the URL clients reach the server at, behind a proxy (env WORKGRAPH_PUBLIC_URL)' },
  { flags: '--session-idle-timeout <duration>', description: 'close HTTP sessions idle this long, e.g. 30m (env WORKGRAPH_SESSION_IDLE_TIMEOUT; default 30m)' },
  { flags: '--max-sessions <n>', description: 'open HTTP sessions at most (env WORKGRAPH_MAX_SESSIONS; default 100)' },
  { flags: '--dashboard', description: 'with --http: serve the web dashboard at /dashboard/ under the same tokens as /mcp (env WORKGRAPH_DASHBOARD=1)' },
  {
    flags: '--allow-actions',
    description: "enable actions, each logged: the MCP Apps views' (reset a task, release a claim, approve a step) and, with --dashboard, the dashboard's (reset, restore knowledge, run a graph tool)",
  },
  { flags: '--no-ui', description: "don't announce the MCP Apps views (ui://workgraph/…) to hosts that show them (env WORKGRAPH_UI=0)" },
];
