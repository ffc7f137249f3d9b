/**
 * Command options as data, so that `serve` can be parsed without commander on its cold start
 * (src/cli/commands/serve-args.ts) while commander builds the very same options for every command
 * (src/cli/commands/common-options.ts). No commander import here.
 */
export interface OptionSpec {
  /** Commander's flags string: `--data-dir <dir>` (takes a value) or `--only-graphs` (a switch). */
  flags: string;
  description: string;
  /**
   * How a value is read: `collect` repeats into a list, `csv` splits on commas and repeats, a function parses (and
   * throws an Error whose message says what was expected). Default: the string, the last one given wins.
   */
  parse?: 'collect' | 'csv' | ((value: string) => unknown);
  /** The only values allowed. */
  choices?: readonly string[];
}

/** The long name of an option (`--data-dir <dir>` → `data-dir`). */
export function optionName(spec: OptionSpec): string {
  return spec.flags.split(' ')[0]!.slice(2);
}

/** Whether the option takes a value. */
export function takesValue(spec: OptionSpec): boolean {
  return spec.flags.includes('<');
}

/** Whether the option is a negated switch (`--no-ui`): commander gives its key (`ui`) true unless it is given. */
export function isNegated(spec: OptionSpec): boolean {
  return optionName(spec).startsWith('no-') && !takesValue(spec);
}

/** The key commander gives the option's value (`data-dir` → `dataDir`, `no-ui` → `ui`). */
export function optionKey(spec: OptionSpec): string {
  return optionName(spec).replace(/^no-/, isNegated(spec) ? '' : 'no-').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The next value of an option given `previous` (undefined the first time). */
export function readOptionValue(spec: OptionSpec, value: string, previous: unknown): unknown {
  if (spec.choices && !spec.choices.includes(value)) throw new Error(`Allowed choices are ${spec.choices.join(', ')}.`);
  if (spec.parse === 'collect') return [...((previous as string[] | undefined) ?? []), value];
  if (spec.parse === 'csv') return [...((previous as string[] | undefined) ?? []), ...value.split(',').map((s) => s.trim()).filter(Boolean)];
  if (typeof spec.parse === 'function') return spec.parse(value);
  return value;
}

/** The options shared by commands that load workflows, graphs or data (flags beat environment variables). */
export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { flags: '--workflows <dir>', description: 'workflow folder, repeatable (env WORKGRAPH_WORKFLOWS_PATH)', parse: 'collect' },
  { flags: '--graphs <path>', description: 'graph file or folder, repeatable (env WORKGRAPH_GRAPHS_PATH)', parse: 'collect' },
  { flags: '--data-dir <dir>', description: 'data folder (env WORKGRAPH_DATA_DIR; default $XDG_DATA_HOME/workgraph or ~/.local/share/workgraph)' },
  { flags: '--allow-root <dir>', description: 'folder agents may name as projectRoot/targetDirectory, repeatable (env WORKGRAPH_ALLOWED_ROOTS)', parse: 'collect' },
  { flags: '--modules <list>', description: 'serve only these modules, comma-separated: workflow,graph,tasks,knowledge (env WORKGRAPH_MODULES; default all)' },
  { flags: '--only-graphs', description: "serve only the graph files' tools (and graph_inspect) under the first graph file's own server name, as `mcpgraph -g FILE` does" },
  { flags: '--mcp-config <file>', description: 'MCP server definitions ({"mcpServers": {...}}) merged into the graphs\' servers, repeatable (mcpgraph -m)', parse: 'collect' },
  { flags: '--database-url <url>', description: 'PostgreSQL URL: tasks (and the stores that support it) live in this database instead of the data dir (env WORKGRAPH_DATABASE_URL)' },
  { flags: '--database-pool-size <n>', description: 'connections in the PostgreSQL pool (env WORKGRAPH_DATABASE_POOL_SIZE; default 10)' },
  { flags: '--config <file>', description: 'JSON or YAML file with any of these settings (env WORKGRAPH_CONFIG); flags and env beat it' },
  { flags: '--log-level <level>', description: 'stderr log level', choices: ['debug', 'info', 'warn', 'error', 'silent'] },
  { flags: '--max-blocked-attempts <n>', description: 'blocked outputs in a row on one session step before it needs a person (env WORKGRAPH_MAX_BLOCKED_ATTEMPTS; default 3)' },
  { flags: '--session-retention-days <days>', description: 'completed sessions are pruned this many days after completion (env WORKGRAPH_SESSION_RETENTION_DAYS; default 30)' },
];

/** The common options of every command that reads the stores (the data dir's files or a PostgreSQL database). */
export const STORE_OPTION_NAMES: readonly string[] = ['config', 'data-dir', 'database-url', 'database-pool-size'];
