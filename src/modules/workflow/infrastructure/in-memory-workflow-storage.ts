import type { Workflow } from '../domain/types';
import { SnapshotWorkflowCatalog, type CatalogSnapshot } from './workflow-catalog';

/** Workflows held in memory (tests, library use). Not validated: wrap it in SchemaValidatingWorkflowStorage for that. */
export class InMemoryWorkflowStorage extends SnapshotWorkflowCatalog {
  private readonly byId = new Map<string, Workflow>();

  /** @param source label reported by workflow_list. Default `memory`. */
  constructor(workflows: Workflow[] = [], private readonly source = 'memory') {
    super();
    for (const w of workflows) this.put(w);
  }

  /** Adds or replaces a workflow by id. */
  put(workflow: Workflow): void {
    this.byId.set(workflow.id, workflow);
  }

  remove(id: string): boolean {
    return this.byId.delete(id);
  }

  async snapshot(): Promise<CatalogSnapshot> {
    return { workflows: [...this.byId.values()].map((workflow) => ({ workflow, source: this.source })), invalid: [] };
  }

  folders(): string[] {
    return [];
  }

}
