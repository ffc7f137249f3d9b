import { SchemaRegistry } from '../../kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../modules/workflow/application/services/workflow-document-checker';
import { ValidateWorkflowJson } from '../../modules/workflow/application/use-cases/validate-workflow-json';
import { loadWorkflowSchema } from '../../modules/workflow/infrastructure/workflow-schema-file';

/** The workflow_validate_json use case built without a container (the CLI needs nothing else of the server). */
export function createWorkflowJsonValidator(): ValidateWorkflowJson {
  return new ValidateWorkflowJson(new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()));
}
