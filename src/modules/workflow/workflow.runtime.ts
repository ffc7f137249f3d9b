import { SchemaRegistry } from '../../kernel/schema-registry';
import { WorkflowDocumentChecker } from './application/services/workflow-document-checker';
import { ValidateWorkflowJson } from './application/use-cases/validate-workflow-json';
import { loadWorkflowSchema } from './infrastructure/workflow-schema-file';

/**
 * What code outside the workflow module uses at run time besides the container, loaded on demand through
 * `workflowRuntime()` in index.ts (Ajv and the schema stay out of cold start).
 */

/** A `workflow_validate_json` checker over the real schema and structure checks, without a container (the CLI). */
export function createWorkflowJsonValidator(): ValidateWorkflowJson {
  return new ValidateWorkflowJson(new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()));
}
