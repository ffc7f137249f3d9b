import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import type { MigrationStep } from '../../../kernel/files/data-format';
import { errnoCode } from '../../../kernel/files/storage-errors';
import { knowledgePaths } from './knowledge-files';
import { OWNER_FILE, readOwner } from './ndjson-project-owner';
import { ProjectLayout } from '../../../kernel/files/project-layout';

/**
 * Format 2: every knowledge project records which folder owns its plain id (`knowledge_graph.owner.json`), taken
 * from its newest node with a path `projectContext`, so two folders with the same last segment stop sharing one
 * project while the existing one stays where it is. Idempotent: projects that have an owner file are skipped.
 */
export const recordKnowledgeOwners: MigrationStep = {
  to: 2,
  description: 'knowledge: record the folder that owns each project (knowledge_graph.owner.json)',
  async run(dataDir) {
    const layout = new ProjectLayout(dataDir);
    let ids: string[];
    try {
      ids = await fs.readdir(layout.projectsDir);
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return;
      throw e;
    }
    for (const id of ids) {
      if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) continue;
      const paths = knowledgePaths(layout, id);
      const owner = await readOwner(paths);
      if (owner.recorded || owner.pathKey === null) continue;
      await writeFileAtomic(
        path.join(paths.dir, OWNER_FILE),
        JSON.stringify({ pathKey: owner.pathKey, recordedBy: 'migration to format 2' }) + '\n',
      );
    }
  },
};

export const knowledgeMigrations: readonly MigrationStep[] = [recordKnowledgeOwners];
