/**
 * A check of an output contract's artifact beyond its JSON Schema, supplied by the module that owns what the artifact
 * describes (the tasks module checks a `wr.contracts.task_plan` as init_project_graph would: duplicate ids, unknown
 * dependencies, cycles). Registered under WorkflowTokens.ContractRules, any number of them; the workflow module runs
 * each one whose `contractId` a step's outputContract names, once the artifact passes the schema.
 */
export interface ContractRule {
  /** `wr.contracts.<name>`. */
  readonly contractId: string;
  /** Every problem, each with a JSON pointer into the artifact (`/nodes/2/depends_on/0`) and a one-line message. */
  check(artifact: Record<string, unknown>): { pointer: string; message: string }[];
}
