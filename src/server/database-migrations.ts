import type { Migration } from '../kernel/postgres/migrations';
import { tasksMigrations } from '../modules/tasks';
import { knowledgeDatabaseMigrations } from '../modules/knowledge';

/** Every module's PostgreSQL migrations (a module with a PostgreSQL adapter adds its list here). */
export function allMigrations(): Migration[] {
  return [...tasksMigrations, ...knowledgeDatabaseMigrations];
}
