import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../../../src/kernel/errors';
import type { Workflow, WorkflowSummary } from '../../../src/modules/workflow/domain/types';
import type { LocatedWorkflow, WorkflowDocumentLookup, WorkflowListing, WorkflowStorage } from '../../../src/modules/workflow/application/ports/workflow-storage';

/** A real WorkflowStorage over a Map, for use case tests (the storage adapters are tested on their own). */
export class MapWorkflowStorage implements WorkflowStorage {
  private readonly workflows = new Map<string, Workflow>();

  constructor(workflows: Workflow[] = []) {
    for (const w of workflows) this.workflows.set(w.id, w);
  }

  async list(): Promise<WorkflowListing> {
    const workflows: WorkflowSummary[] = [...this.workflows.values()].map((w) => ({
      id: w.id,
      name: w.name,
      description: w.description,
      version: w.version,
      source: 'memory',
    }));
    return { workflows, invalid: [] };
  }

  async get(id: string): Promise<Workflow> {
    const workflow = this.workflows.get(id);
    if (!workflow) throw new NotFoundError('workflow', id);
    // A deep copy, as a file-backed store would hand out: use cases must not rely on object identity.
    return JSON.parse(JSON.stringify(workflow)) as Workflow;
  }

  async locate(id: string): Promise<LocatedWorkflow> {
    return { workflow: await this.get(id), source: 'memory' };
  }

  async documents(): Promise<WorkflowDocumentLookup> {
    return (id) => this.workflows.get(id) as unknown as Record<string, unknown> | undefined;
  }
}

const ROOT = join(__dirname, '..', '..', '..');

/** Reads a workflow JSON file relative to the repository root. */
export function loadWorkflow(relativePath: string): Workflow {
  return JSON.parse(readFileSync(join(ROOT, relativePath), 'utf8')) as Workflow;
}
