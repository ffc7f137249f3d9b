import * as path from 'node:path';
import type { AppConfig } from '../../kernel/config/app-config';

/**
 * Where a CLI command looked for a project, for its "not there" errors: the usual cause is a server that ran with
 * another --data-dir (or database). The database URL is shown without its password.
 */
export async function storePlace(config: Pick<AppConfig, 'dataDir' | 'database'>): Promise<string> {
  if (!config.database) return `searched ${path.join(config.dataDir, 'projects')}; data dir from --data-dir, WORKGRAPH_DATA_DIR or the default`;
  const { redactDatabaseUrl } = await import('../../kernel/postgres/database-url');
  return `database ${redactDatabaseUrl(config.database.url)}; from --database-url or WORKGRAPH_DATABASE_URL`;
}
