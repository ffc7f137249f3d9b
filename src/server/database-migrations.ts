import type { Migration } from '../kernel/postgres/migrations';
import { graphDatabaseMigrations } from '../modules/graph';
import { tasksDatabaseMigrations } from '../modules/tasks';
import { workflowDatabaseMigrations } from '../modules/workflow';
import { knowledgeDatabaseMigrations } from '../modules/knowledge';

/** Every module's PostgreSQL migrations (a module with a PostgreSQL adapter adds its list here). */
export function allMigrations(): Migration[] {
  return [...tasksDatabaseMigrations(), ...knowledgeDatabaseMigrations(), ...workflowDatabaseMigrations(), ...graphDatabaseMigrations()];
}
