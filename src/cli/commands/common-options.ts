import { Option, type Command } from 'commander';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the options shared by commands that load workflows, graphs or data (flags beat environment variables). */
export function withCommonOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--workflows <dir>', 'workflow folder, repeatable (env WORKGRAPH_WORKFLOWS_PATH)').argParser(collect))
    .addOption(new Option('--graphs <path>', 'graph file or folder, repeatable (env WORKGRAPH_GRAPHS_PATH)').argParser(collect))
    .addOption(new Option('--data-dir <dir>', 'data folder (env WORKGRAPH_DATA_DIR; default $XDG_DATA_HOME/workgraph or ~/.local/share/workgraph)'))
    .addOption(new Option('--allow-root <dir>', 'folder agents may name as projectRoot/targetDirectory, repeatable (env WORKGRAPH_ALLOWED_ROOTS)').argParser(collect))
    .addOption(new Option('--modules <list>', 'serve only these modules, comma-separated: workflow,graph,tasks,knowledge (env WORKGRAPH_MODULES; default all)'))
    .addOption(new Option('--only-graphs', "serve only the graph files' tools (and graph_inspect) under the first graph file's own server name, as `mcpgraph -g FILE` does"))
    .addOption(new Option('--mcp-config <file>', 'MCP server definitions ({"mcpServers": {...}}) merged into the graphs\' servers, repeatable (mcpgraph -m)').argParser(collect))
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL: tasks (and the stores that support it) live in this database instead of the data dir (env WORKGRAPH_DATABASE_URL)'))
    .addOption(new Option('--database-pool-size <n>', 'connections in the PostgreSQL pool (env WORKGRAPH_DATABASE_POOL_SIZE; default 10)'))
    .addOption(new Option('--config <file>', 'JSON or YAML file with any of these settings (env WORKGRAPH_CONFIG); flags and env beat it'))
    .addOption(new Option('--log-level <level>', 'stderr log level').choices(['debug', 'info', 'warn', 'error', 'silent']).default(undefined))
    .addOption(new Option('--max-blocked-attempts <n>', 'blocked outputs in a row on one session step before it needs a person (env WORKGRAPH_MAX_BLOCKED_ATTEMPTS; default 3)'))
    .addOption(new Option('--session-retention-days <days>', 'completed sessions are pruned this many days after completion (env WORKGRAPH_SESSION_RETENTION_DAYS; default 30)'));
}
