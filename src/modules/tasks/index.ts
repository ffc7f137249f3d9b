/**
 * The tasks module's public face: the only file code outside the module imports (docs/architecture.md). Light:
 * tokens, tool declarations, types and a lazy registration.
 */
import type { ModuleRegistration } from '../../kernel/module-registration';

export { TasksTokens } from './application/tasks.tokens';
export { tasksTools } from './tasks.tools';
export type { ProjectGraphView } from './application/services/task-graph-views';
export type { TaskGraph, TaskNode, TaskStatus } from './domain';

/** Registers the tasks module (wiring loaded on the first call). */
export const registerTasksModule: ModuleRegistration = (container, config) =>
  (require('./tasks.module') as typeof import('./tasks.module')).tasksModule(container, config);

