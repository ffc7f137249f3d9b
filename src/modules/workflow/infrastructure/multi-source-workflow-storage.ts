import type { InvalidWorkflowEntry } from '../application/ports/workflow-storage';
import { SnapshotWorkflowCatalog, type CatalogSnapshot, type WorkflowCatalog, type WorkflowEntry } from './workflow-catalog';

/**
 * Several sources in override order (docs/configuration.md: bundled, ./workflows, WORKGRAPH_WORKFLOWS_PATH, --workflows): a
 * later source replaces every earlier record of the same workflow id — including with an invalid file, so a broken
 * override is reported as invalid rather than silently falling back to the earlier version. A workflow that replaces
 * a loaded one says which (`shadows`: its source and file).
 */
export class MultiSourceWorkflowStorage extends SnapshotWorkflowCatalog {
  constructor(private readonly sources: readonly WorkflowCatalog[]) {
    super();
  }

  async snapshot(): Promise<CatalogSnapshot> {
    const snapshots = await Promise.all(this.sources.map((s) => s.snapshot()));
    const byId = new Map<string, { workflows: WorkflowEntry[]; invalid: InvalidWorkflowEntry[] }>();
    for (const snap of snapshots) {
      const fromThisSource = new Map<string, { workflows: WorkflowEntry[]; invalid: InvalidWorkflowEntry[] }>();
      const slot = (id: string) => {
        let s = fromThisSource.get(id);
        if (!s) fromThisSource.set(id, (s = { workflows: [], invalid: [] }));
        return s;
      };
      for (const e of snap.workflows) slot(e.workflow.id).workflows.push(e);
      for (const e of snap.invalid) slot(e.id).invalid.push(e);
      for (const [id, records] of fromThisSource) {
        const earlier = byId.get(id)?.workflows[0];
        if (earlier) {
          const shadows = { source: earlier.source, ...(earlier.file !== undefined ? { file: earlier.file } : {}) };
          records.workflows = records.workflows.map((e) => ({ ...e, shadows }));
        }
        byId.set(id, records); // an overridden id keeps the place where it first appeared
      }
    }
    const result: CatalogSnapshot = { workflows: [], invalid: [] };
    for (const records of byId.values()) {
      result.workflows.push(...records.workflows);
      result.invalid.push(...records.invalid);
    }
    return result;
  }

  folders(): string[] {
    return this.sources.flatMap((s) => s.folders());
  }

}
