import type { ToolDefinition } from '../kernel/tools/tool-definition';
import { tasksTools } from '../modules/tasks';
import { knowledgeTools } from '../modules/knowledge';
import { workflowTools } from '../modules/workflow';
import { graphTools } from '../modules/graph';

/** Every built-in tool, module by module. A module adds its own `<module>-tools.ts` array here. */
export function builtinTools(): ToolDefinition[] {
  return [...workflowTools, ...graphTools, ...tasksTools, ...knowledgeTools];
}
