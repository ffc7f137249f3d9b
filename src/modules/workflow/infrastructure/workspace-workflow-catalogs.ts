import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../../../kernel/clock';
import { silentLogger, type Logger } from '../../../kernel/logger';
import type { WorkflowStorage } from '../application/ports/workflow-storage';
import { WORKSPACE_SOURCE, WORKSPACE_WORKFLOW_FOLDERS, type WorkspaceWorkflowCatalogs } from '../application/ports/workspace-workflows';
import { CachingWorkflowStorage } from './caching-workflow-storage';
import { FileWorkflowStorage } from './file-workflow-storage';
import { MultiSourceWorkflowStorage } from './multi-source-workflow-storage';
import { SchemaValidatingWorkflowStorage, type WorkflowDocumentCheck } from './schema-validating-workflow-storage';
import type { WorkflowCatalog } from './workflow-catalog';

/** How many workspaces keep their catalog in memory (least recently used dropped first). Default 32. */
export const WORKSPACE_CATALOGS = 32;

/**
 * One catalog per workspace, built on first use and kept (LRU): the configured sources (the same folder readers the
 * server's own catalog uses) followed by the workspace's two folders, schema-checked and compiled like any other
 * source (a workspace file's templateCall finds bundled routines), cached like the server's own catalog: its folders
 * are watched, so an edit is seen at once, and fingerprinted after the TTL. A catalog dropped from the LRU closes its
 * watchers, and `close()` (shutdown) closes them all.
 */
export class FileWorkspaceWorkflowCatalogs implements WorkspaceWorkflowCatalogs {
  private readonly catalogs = new Map<string, CachingWorkflowStorage>();

  constructor(
    private readonly sources: readonly WorkflowCatalog[],
    private readonly checker: WorkflowDocumentCheck,
    private readonly options: { ttlMs: number; clock: Clock; logger?: Logger; max?: number },
  ) {}

  async forWorkspace(workspace: string): Promise<WorkflowStorage> {
    const folder = await fs.realpath(workspace);
    const hit = this.catalogs.get(folder);
    if (hit) {
      this.catalogs.delete(folder);
      this.catalogs.set(folder, hit);
      return hit;
    }
    const logger = this.options.logger ?? silentLogger;
    const own = WORKSPACE_WORKFLOW_FOLDERS.map(
      (sub) => new FileWorkflowStorage(path.join(folder, sub), WORKSPACE_SOURCE, logger, { optional: true, confineTo: folder }),
    );
    const catalog = new CachingWorkflowStorage(
      new SchemaValidatingWorkflowStorage(new MultiSourceWorkflowStorage([...this.sources, ...own]), this.checker, logger),
      { ttlMs: this.options.ttlMs },
      this.options.clock,
      logger,
    );
    this.catalogs.set(folder, catalog);
    const max = this.options.max ?? WORKSPACE_CATALOGS;
    while (this.catalogs.size > max) {
      const oldest = this.catalogs.keys().next().value as string;
      this.catalogs.get(oldest)?.close();
      this.catalogs.delete(oldest);
    }
    return catalog;
  }

  async hasOwnWorkflows(folder: string): Promise<boolean> {
    const found = await Promise.all(WORKSPACE_WORKFLOW_FOLDERS.map((sub) => fs.stat(path.join(folder, sub)).then((s) => s.isDirectory(), () => false)));
    return found.some(Boolean);
  }

  /** Stops watching every workspace's folders. */
  close(): void {
    for (const catalog of this.catalogs.values()) catalog.close();
    this.catalogs.clear();
  }
}
