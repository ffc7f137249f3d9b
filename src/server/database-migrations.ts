import type { Migration } from '../kernel/postgres/migrations';
import { tasksMigrations } from '../modules/tasks';

/** Every module's PostgreSQL migrations (a module with a PostgreSQL adapter adds its list here). */
export function allMigrations(): Migration[] {
  return [...tasksMigrations];
}
