import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import type { UseCase } from '../../../../kernel/use-case';
import type { WorkflowStorage } from '../ports/workflow-storage';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowListSchemas } from '../workflow.tool-schemas';

/** The tool's answer, as its output schema describes it: the workflows, and the files that failed to load with why. */
export type ListWorkflowsOutput = ToolOutput<typeof workflowListSchemas>;

/**
 * workflow_list: every available workflow (`{id, name, description, version, source}`, and for the current format
 * `format`, `tags`, `about`) plus the invalid files.
 */
@injectable()
export class ListWorkflows implements UseCase<ToolInput<typeof workflowListSchemas>, ListWorkflowsOutput> {
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
