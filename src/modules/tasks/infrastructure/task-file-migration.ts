import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ProjectLayout } from '../../../kernel/files/project-layout';
import { FileTaskGraphStore, TASK_GRAPH_FILE } from './file-task-graph-store';

/** What a data-dir migration step is (the kernel's data-format list of steps has this shape). */
export interface TaskMigrationStep {
  to: number;
  description: string;
  run(dataDir: string): Promise<void>;
}

/**
 * The task files' step of the data-dir migration to format 2: every project's `task_graph.json` of format 1 is
 * rewritten as format 2 — attempt records beyond the latest 20 per node moved to the transition log first, then the
 * graph written with the log length that belongs to it (run leases need no rewrite: a node without one keeps the old
 * timeout rule). Idempotent: a file already of format 2 is left alone. The store also reads format 1 files directly
 * (upgrading them on their next write), so a data dir that skipped this step still works.
 */
export const TASK_FILES_MIGRATION: TaskMigrationStep = {
  to: 2,
  description: 'tasks: attempt records bounded to 20 per node (older ones moved to the transition log), run owner leases',
  async run(dataDir: string): Promise<void> {
    const layout = new ProjectLayout(dataDir);
    const store = new FileTaskGraphStore(layout);
    let ids: string[];
    try {
      ids = await fs.readdir(layout.projectsDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const id of ids.sort()) {
      if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) continue;
      const file = path.join(layout.projectsDir, id, TASK_GRAPH_FILE);
      if (!(await fs.stat(file).catch(() => undefined))?.isFile()) continue;
      await store.upgrade(id);
    }
  },
};
