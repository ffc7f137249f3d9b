import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import type { UseCase } from '../../../../kernel/use-case';

/** workflow_get_schema: the workflow JSON Schema (spec/workflow.schema.json), for agents writing workflow files. */
@injectable()
export class GetWorkflowSchema implements UseCase<Record<string, never>, { schema: Record<string, unknown> }> {
  constructor(@inject(WorkflowTokens.WorkflowSchema) private readonly schema: Record<string, unknown>) {}

  execute(): { schema: Record<string, unknown> } {
    return { schema: this.schema };
  }
}
