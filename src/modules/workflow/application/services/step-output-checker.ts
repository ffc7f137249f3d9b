import { inject, injectAll, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import type { SchemaRegistry } from '../../../../kernel/schema-registry';
import { WorkflowTokens } from '../workflow.tokens';
import type { ContractSchemaSource } from '../ports/contract-schemas';
import type { ContractRule } from '../ports/contract-rules';
import { checkStepOutput, type OutputVerdict } from '../../domain/current-format/output-check';
import type { StepLookup } from '../../domain/step-lookup';
import type { Workflow } from '../../domain/types';

/**
 * Checks the output of a current-format step: contracts against spec/contracts/ schemas with Ajv, then the contract
 * rules other modules register (WorkflowTokens.ContractRules), and assessments.
 */
@injectable()
export class StepOutputChecker {
  constructor(
    @inject(Tokens.SchemaRegistry) private readonly schemas: SchemaRegistry,
    @inject(WorkflowTokens.ContractSchemas) readonly contracts: ContractSchemaSource,
    @injectAll(WorkflowTokens.ContractRules, { isOptional: true }) private readonly rules: ContractRule[] = [],
  ) {}

  check(workflow: Workflow, lookup: StepLookup, output: unknown): OutputVerdict {
    return checkStepOutput(workflow, lookup, output, (contractId, artifact) => {
      const schema = this.contracts.schema(contractId);
      if (!schema) return [];
      const result = this.schemas.validate(schema, artifact);
      if (!result.valid) return result.errors.map(({ pointer, message }) => ({ pointer, message }));
      return this.rules.filter((r) => r.contractId === contractId).flatMap((r) => r.check(artifact as Record<string, unknown>));
    });
  }
}
