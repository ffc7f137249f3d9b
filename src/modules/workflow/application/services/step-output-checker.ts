import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import type { SchemaRegistry } from '../../../../kernel/schema-registry';
import { WorkflowTokens } from '../workflow.tokens';
import type { ContractSchemaSource } from '../ports/contract-schemas';
import { checkStepOutput, type OutputVerdict } from '../../domain/current-format/output-check';
import type { StepLookup } from '../../domain/step-lookup';
import type { Workflow } from '../../domain/types';

/** Checks the output of a current-format step (contracts against spec/contracts/ schemas with Ajv, assessments). */
@injectable()
export class StepOutputChecker {
  constructor(
    @inject(Tokens.SchemaRegistry) private readonly schemas: SchemaRegistry,
    @inject(WorkflowTokens.ContractSchemas) readonly contracts: ContractSchemaSource,
  ) {}

  check(workflow: Workflow, lookup: StepLookup, output: unknown): OutputVerdict {
    return checkStepOutput(workflow, lookup, output, (contractId, artifact) => {
      const schema = this.contracts.schema(contractId);
      if (!schema) return [];
      const result = this.schemas.validate(schema, artifact);
      return result.valid ? [] : result.errors.map(({ pointer, message }) => ({ pointer, message }));
    });
  }
}
