import type { ToolDefinition } from '../kernel/tools/tool-definition';
import { MODULE_NAMES, type ModuleName } from '../kernel/config/app-config';
import { tasksTools } from '../modules/tasks';
import { knowledgeTools } from '../modules/knowledge';
import { workflowTools } from '../modules/workflow';
import { graphAuthoringTools, graphTools } from '../modules/graph';

/** Each module's built-in tools. A module adds its own `<module>.tools.ts` array here. */
const TOOLS_BY_MODULE: Record<ModuleName, readonly ToolDefinition[]> = {
  workflow: workflowTools,
  graph: graphTools,
  tasks: tasksTools,
  knowledge: knowledgeTools,
};

/** Tools served only when a switch turns them on (off by default), by the module they belong to. */
export interface OptionalTools {
  /** `--graph-authoring`: the graph module's authoring tools. */
  graphAuthoring?: boolean;
}

/** The built-in tools of the modules named (default every module), module by module, with the optional ones asked for. */
export function builtinTools(modules: readonly ModuleName[] = MODULE_NAMES, optional: OptionalTools = {}): ToolDefinition[] {
  return MODULE_NAMES.filter((m) => modules.includes(m)).flatMap((m) => [
    ...TOOLS_BY_MODULE[m],
    ...(m === 'graph' && optional.graphAuthoring ? graphAuthoringTools : []),
  ]);
}

/** Every tool a server can serve, the optional ones included: what spec/mcp-api.md documents. */
export function everyBuiltinTool(): ToolDefinition[] {
  return builtinTools(MODULE_NAMES, { graphAuthoring: true });
}

/** The modules a configuration serves: `--only-graphs` serves the graph module's tools alone. */
export function servedModules(config: { modules: readonly ModuleName[]; onlyGraphs: boolean }): ModuleName[] {
  return config.onlyGraphs ? ['graph'] : [...config.modules];
}
