import type { MigrationStep } from '../kernel/files/data-format';
import { knowledgeMigrations } from '../modules/knowledge';
import { taskFileMigrations } from '../modules/tasks';

/**
 * Every module's data-dir migration steps, in the order they run within one format (see DataFormat in
 * kernel/files/data-format.ts). A module that changes what it stores bumps DATA_FORMAT_VERSION and adds its steps
 * here (through its index.ts, loaded lazily: this runs on the first write, not at start).
 */
export function dataMigrations(): MigrationStep[] {
  return [...knowledgeMigrations(), ...taskFileMigrations()];
}
