import type { Migration } from '../kernel/postgres/migrations';
import { graphDatabaseMigrations } from '../modules/graph';
import { tasksDatabaseMigrations } from '../modules/tasks';
import { workflowDatabaseMigrations } from '../modules/workflow';
import { knowledgeDatabaseMigrations } from '../modules/knowledge';
import { protocolMigrations } from './tasks-extension/protocol-migrations';

/** Every module's PostgreSQL migrations (a module with a PostgreSQL adapter adds its list here), and the protocol layer's. */
export function allMigrations(): Migration[] {
  return [...tasksDatabaseMigrations(), ...knowledgeDatabaseMigrations(), ...workflowDatabaseMigrations(), ...graphDatabaseMigrations(), ...protocolMigrations];
}
