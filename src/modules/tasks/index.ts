/**
 * The tasks module's public face: the only file code outside the module imports (docs/architecture.md). Light:
 * tokens, tool declarations, types and a lazy registration.
 */
import type { ModuleRegistration } from '../../kernel/module-registration';

export { TasksTokens } from './application/tasks.tokens';
export { tasksTools } from './tasks.tools';
export type { ProjectGraphView } from './application/services/task-graph-views';
export type { TaskGraphStore } from './application/ports/task-graph-store';
export type { TaskProjectSummary } from './application/use-cases/list-task-projects';
export type { TaskDetails } from './application/use-cases/get-task-details';
export type { TaskGraph, TaskNode, TaskStatus } from './domain';

/** The tasks module's PostgreSQL schema migrations (loaded when a database is migrated, not at start). */
export function tasksDatabaseMigrations(): import('../../kernel/postgres/migrations').Migration[] {
  return (require('./infrastructure/postgres/tasks-migrations') as typeof import('./infrastructure/postgres/tasks-migrations')).tasksMigrations;
}

/** The tasks module's data-dir (file) migration steps (loaded when a migration runs, not at start). */
export function taskFileMigrations(): import('./infrastructure/task-file-migration').TaskMigrationStep[] {
  return [(require('./infrastructure/task-file-migration') as typeof import('./infrastructure/task-file-migration')).TASK_FILES_MIGRATION];
}

/** Registers the tasks module (wiring loaded on the first call). */
export const registerTasksModule: ModuleRegistration = (container, config) =>
  (require('./tasks.module') as typeof import('./tasks.module')).tasksModule(container, config);

