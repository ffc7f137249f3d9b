import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import type { UseCase } from '../../../../kernel/use-case';
import type { WorkflowStorage } from '../ports/workflow-storage';
import type { WorkflowSummary } from '../../domain/types';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowListSchemas } from '../workflow.tool-schemas';

export interface ListWorkflowsOutput {
  workflows: WorkflowSummary[];
  /** Workflow files that failed to load, each with its file and why (they never hide the valid ones). */
  invalid: Array<{ id: string; file: string; source: string; reason: string }>;
}

/**
 * workflow_list: every available workflow (`{id, name, description, version, source}`, and for the current format
 * `format`, `tags`, `about`) plus the invalid files.
 */
@injectable()
export class ListWorkflows implements UseCase<ToolInput<typeof workflowListSchemas>, ToolOutput<typeof workflowListSchemas>> {
  constructor(@inject(WorkflowTokens.WorkflowStorage) private readonly storage: WorkflowStorage) {}

  async execute(): Promise<ListWorkflowsOutput> {
    const listing = await this.storage.list();
    return {
      workflows: listing.workflows.map(({ id, name, description, version, source, format, tags, about }) => ({
        id,
        name,
        description,
        version,
        source,
        ...(format === 'current' ? { format } : {}),
        ...(tags !== undefined ? { tags } : {}),
        ...(about !== undefined ? { about } : {}),
      })),
      invalid: listing.invalid.map(({ id, file, source, reason }) => ({ id, file, source, reason })),
    };
  }
}
