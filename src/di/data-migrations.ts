import type { MigrationStep } from '../infrastructure/files/data-format';
import { knowledgeMigrations } from '../infrastructure/knowledge/knowledge-migrations';

/**
 * Every module's data-dir migration steps, in the order they run within one format (see DataFormat). A module that
 * changes what it stores bumps DATA_FORMAT_VERSION and adds its step here.
 */
export function dataMigrations(): MigrationStep[] {
  return [...knowledgeMigrations];
}
