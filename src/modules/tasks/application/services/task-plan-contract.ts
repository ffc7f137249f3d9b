import type { ContractRule } from '../../../workflow';
import { taskPlanProblems, type TaskPlan } from '../../domain/plan-checks';

/** The contract a `plan-from-document` workflow's last step names. */
export const TASK_PLAN_CONTRACT = 'wr.contracts.task_plan';

/**
 * The tasks module's check of a `wr.contracts.task_plan` artifact, plugged into the workflow module's output checks
 * (WorkflowTokens.ContractRules): the plan is refused for exactly what init_project_graph / add_tasks would refuse,
 * with the problem named, before the agent sends it to them.
 */
export const taskPlanContractRule: ContractRule = {
  contractId: TASK_PLAN_CONTRACT,
  check: (artifact) => taskPlanProblems(artifact as unknown as TaskPlan),
};
