import type { ToolDefinition } from '../kernel/tools/tool-definition';
import { tasksTools } from '../modules/tasks/tasks.tools';
import { knowledgeTools } from '../modules/knowledge/knowledge.tools';
import { workflowTools } from '../modules/workflow/workflow.tools';
import { graphTools } from '../modules/graph/graph.tools';

/** Every built-in tool, module by module. A module adds its own `<module>-tools.ts` array here. */
export function builtinTools(): ToolDefinition[] {
  return [...workflowTools, ...graphTools, ...tasksTools, ...knowledgeTools];
}
