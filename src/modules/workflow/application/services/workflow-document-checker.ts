import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { WorkflowTokens } from '../workflow.tokens';
import { checkWorkflowStructure } from '../../domain/structure-checks';
import type { Workflow } from '../../domain/types';
import type { SchemaRegistry } from '../../../../kernel/schema-registry';

/** One problem in a workflow document: a JSON pointer (`""` for the whole document) and what was expected. */
export interface WorkflowProblem {
  pointer: string;
  message: string;
  /** The failed JSON Schema keyword (`required`, `additionalProperties`, ...), or `structure` for structure checks. */
  keyword: string;
}

/**
 * The one definition of "a valid workflow": spec/workflow.schema.json, then — only for documents with the schema's
 * shape, which the structure checks assume — checkWorkflowStructure (unique step ids, loop bodies naming real
 * top-level steps, no loops containing each other). Used by SchemaValidatingWorkflowStorage, workflow_validate_json
 * and `workgraph validate`.
 */
@injectable()
export class WorkflowDocumentChecker {
  constructor(
    @inject(Tokens.SchemaRegistry) private readonly schemas: SchemaRegistry,
    @inject(WorkflowTokens.WorkflowSchema) private readonly schema: Record<string, unknown>,
  ) {}

  check(document: unknown): WorkflowProblem[] {
    const result = this.schemas.validate(this.schema, document);
    if (!result.valid) return result.errors.map(({ pointer, message, keyword }) => ({ pointer, message, keyword }));
    return checkWorkflowStructure(document as Workflow).map(({ path, message }) => ({ pointer: path, message, keyword: 'structure' }));
  }
}
