import { workflowRuntime, type ValidateWorkflowJson } from '../../modules/workflow';

/** The default workflow checker of `workgraph validate`: the real schema and structure checks, no container. */
export function createWorkflowJsonValidator(): ValidateWorkflowJson {
  return workflowRuntime().createWorkflowJsonValidator();
}
