import { SchemaRegistry } from '../../kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../application/services/workflow-document-checker';
import { ValidateWorkflowJson } from '../../application/use-cases/validate-workflow-json';
import { loadWorkflowSchema } from '../../infrastructure/storage/workflow-schema-file';

/** The workflow_validate_json use case built without a container (the CLI needs nothing else of the server). */
export function createWorkflowJsonValidator(): ValidateWorkflowJson {
  return new ValidateWorkflowJson(new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()));
}
