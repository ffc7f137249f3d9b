import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { InvalidArgumentsError } from '../../../../kernel/errors';
import type { UseCase } from '../../../../kernel/use-case';
import type { ContractSchemaSource } from '../ports/contract-schemas';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowGetSchemaSchemas } from '../workflow.tool-schemas';

/**
 * workflow_get_schema: the workflow JSON Schema (spec/workflow.schema.json, both formats), or with `contract` the
 * schema of an output contract or of the assessment artifact (spec/contracts/).
 */
@injectable()
export class GetWorkflowSchema implements UseCase<ToolInput<typeof workflowGetSchemaSchemas>, ToolOutput<typeof workflowGetSchemaSchemas>> {
  constructor(
    @inject(WorkflowTokens.WorkflowSchema) private readonly schema: Record<string, unknown>,
    @inject(WorkflowTokens.ContractSchemas) private readonly contracts: ContractSchemaSource,
  ) {}

  /** @throws InvalidArgumentsError naming the known ids when `contract` is unknown. */
  execute(input: ToolInput<typeof workflowGetSchemaSchemas> = {}): { schema: Record<string, unknown> } {
    if (input?.contract === undefined) return { schema: this.schema };
    const schema = this.contracts.schema(input.contract);
    if (!schema) {
      throw new InvalidArgumentsError(`unknown contract '${input.contract}'; known: ${this.contracts.ids().join(', ')}`, 'contract');
    }
    return { schema };
  }
}
