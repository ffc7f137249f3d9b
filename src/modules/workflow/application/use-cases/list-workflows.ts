import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowListSchemas } from '../workflow.tool-schemas';
import { WorkspaceWorkflows } from '../services/workspace-workflows';

/** The tool's answer, as its output schema describes it: the workflows, and the files that failed to load with why. */
export type ListWorkflowsOutput = ToolOutput<typeof workflowListSchemas>;

/**
 * workflow_list: every available workflow (`{id, name, description, version, source}`, and for the current format
 * `format`, `tags`, `about`; `shadows` for one replacing another source's) plus the invalid files. With
 * `workspacePath` (inside the caller's roots), that folder's own workflows too, as a session working there sees them.
 */
@injectable()
export class ListWorkflows implements UseCase<ToolInput<typeof workflowListSchemas>, ListWorkflowsOutput> {
  constructor(@inject(WorkflowTokens.WorkspaceWorkflows) private readonly workspaces: WorkspaceWorkflows) {}

  async execute(input: ToolInput<typeof workflowListSchemas> = {}, ctx?: CallContext): Promise<ListWorkflowsOutput> {
    const { storage } = await this.workspaces.catalogFor(input.workspacePath, ctx, 'workspacePath', true);
    const listing = await storage.list();
    const warnings = WorkspaceWorkflows.shadowWarnings(listing);
    return {
      workflows: listing.workflows.map(({ id, name, description, version, source, format, tags, about, shadows }) => ({
        id,
        name,
        description,
        version,
        source,
        ...(format === 'current' ? { format } : {}),
        ...(tags !== undefined ? { tags } : {}),
        ...(about !== undefined ? { about } : {}),
        ...(shadows !== undefined ? { shadows } : {}),
      })),
      invalid: listing.invalid.map(({ id, file, source, reason }) => ({ id, file, source, reason })),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }
}
