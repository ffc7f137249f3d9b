import type { AppConfig, ModuleName } from '../kernel/config/app-config';
import type { Logger } from '../kernel/logger';
import type { GraphHost } from '../modules/graph';
import type { ServerIdentity } from './workgraph-server-deps';

/** Said beside the graph module's line with --graph-authoring. */
const GRAPH_AUTHORING_INSTRUCTIONS =
  'and tools to author them (graph_mcp_server_list, graph_test_jsonata, graph_tool_run, graph_tool_add: the author-graph-tool workflow walks you through)';

const MODULE_INSTRUCTIONS: Record<ModuleName, string> = {
  workflow: 'guided workflows (workflow_list, workflow_next: follow the steps in order)',
  graph: 'graph tools (graph_inspect shows a run)',
  tasks: 'a task DAG whose validation commands the server runs (get_ready_tasks, start_task, validate_task_loop)',
  knowledge: 'a knowledge graph of thoughts per project (add_nodes, list_nodes)',
};

/**
 * What the server answers `initialize` with: workgraph, with instructions naming the modules served; with
 * `--only-graphs`, the first graph file's own `server` block (name, version, title, instructions), as `mcpgraph -g`.
 */
export function serverIdentity(config: AppConfig, modules: readonly ModuleName[], host: GraphHost | undefined, logger: Logger): ServerIdentity {
  if (config.onlyGraphs) {
    const graphs = host?.graphs() ?? [];
    const first = graphs[0];
    if (first) {
      if (graphs.length > 1) logger.info(`--only-graphs: serving as '${first.config.server.name}' (the server block of ${first.config.file})`);
      const s = first.config.server;
      return { name: s.name, version: s.version, ...(s.title ? { title: s.title } : {}), ...(s.instructions ? { instructions: s.instructions } : {}) };
    }
    logger.warn('--only-graphs: no graph file loaded; serving under the name workgraph');
  }
  return {
    name: 'workgraph',
    version: config.version,
    instructions: `workgraph: ${modules.map((m) => (m === 'graph' && config.graphAuthoring ? `${MODULE_INSTRUCTIONS[m]}, ${GRAPH_AUTHORING_INSTRUCTIONS}` : MODULE_INSTRUCTIONS[m])).join('; ')}.`,
  };
}
