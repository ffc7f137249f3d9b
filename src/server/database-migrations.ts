import type { Migration } from '../kernel/postgres/migrations';
import { graphMigrations } from '../modules/graph';
import { tasksMigrations } from '../modules/tasks';
import { workflowMigrations } from '../modules/workflow';
import { knowledgeDatabaseMigrations } from '../modules/knowledge';

/** Every module's PostgreSQL migrations (a module with a PostgreSQL adapter adds its list here). */
export function allMigrations(): Migration[] {
  return [...tasksMigrations, ...knowledgeDatabaseMigrations, ...workflowMigrations, ...graphMigrations];
}
