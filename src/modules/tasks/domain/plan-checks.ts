import { isWorkgraphError } from '../../../kernel/errors';
import { findCycle } from './graph-checks';
import { checkDefinitionFields } from './node-definition';
import type { TaskNodeDefinition } from './task-graph';

/** A task plan as the `wr.contracts.task_plan` artifact gives it (its JSON Schema checked already). */
export interface TaskPlan {
  mode?: 'init' | 'add';
  existingTaskIds?: string[];
  nodes: TaskNodeDefinition[];
  uncheckedTasks?: { id: string; reason: string }[];
}

/** One problem of a plan: a JSON pointer into the plan and a one-line message naming the task. */
export interface PlanProblem {
  pointer: string;
  message: string;
}

/**
 * Every problem that would make init_project_graph (mode `init`) or add_tasks (mode `add`, beside `existingTaskIds`)
 * refuse the plan, found the same way ({@link findCycle}, {@link checkDefinitionFields}), all at once so one retry can
 * fix them: duplicate ids, an id the project has already, a dependency on a task that is neither in the plan nor
 * among `existingTaskIds`, a cycle (named `a -> b -> a`), tags or metadata past their bounds — and a task without a
 * validation_command that `uncheckedTasks` does not list (a plan's tasks are proven by their commands unless the plan
 * says why one cannot be).
 */
export function taskPlanProblems(plan: TaskPlan): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const mode = plan.mode ?? 'init';
  const existing = new Set(plan.existingTaskIds ?? []);
  if (mode === 'init' && existing.size > 0) {
    problems.push({ pointer: '/existingTaskIds', message: "existingTaskIds: only for mode 'add' (a new project has no tasks yet)" });
  }
  const firstIndex = new Map<string, number>();
  plan.nodes.forEach((n, i) => {
    const first = firstIndex.get(n.id);
    if (first !== undefined) problems.push({ pointer: `/nodes/${i}/id`, message: `duplicate task id '${n.id}' (also nodes[${first}])` });
    else firstIndex.set(n.id, i);
    if (existing.has(n.id)) problems.push({ pointer: `/nodes/${i}/id`, message: `task id '${n.id}' is already in the project (existingTaskIds)` });
  });
  plan.nodes.forEach((n, i) => {
    (n.depends_on ?? []).forEach((dep, j) => {
      if (!firstIndex.has(dep) && !existing.has(dep)) {
        problems.push({ pointer: `/nodes/${i}/depends_on/${j}`, message: `task '${n.id}' depends on unknown task '${dep}' (not in the plan${mode === 'add' ? ' nor in existingTaskIds' : ''})` });
      }
    });
  });
  const cycle = findCycle(plan.nodes);
  if (cycle) problems.push({ pointer: `/nodes/${firstIndex.get(cycle[0])}/depends_on`, message: `dependency cycle: ${cycle.join(' -> ')}` });
  try {
    checkDefinitionFields(plan.nodes);
  } catch (e) {
    if (!isWorkgraphError(e)) throw e;
    const field = (e.details as { field?: string } | undefined)?.field ?? 'nodes';
    problems.push({ pointer: pointerOf(field), message: e.message });
  }
  const unchecked = new Map((plan.uncheckedTasks ?? []).map((u, k) => [u.id, k]));
  for (const [id, k] of unchecked) {
    if (!firstIndex.has(id)) problems.push({ pointer: `/uncheckedTasks/${k}/id`, message: `uncheckedTasks names '${id}', which is not a task of the plan` });
  }
  plan.nodes.forEach((n, i) => {
    if ((n.validation_command ?? '').trim() === '' && !unchecked.has(n.id)) {
      problems.push({
        pointer: `/nodes/${i}/validation_command`,
        message: `task '${n.id}' has no validation_command: give the command whose exit 0 proves it done, or list it in uncheckedTasks with why no command can`,
      });
    }
  });
  return problems;
}

/** `nodes[3].metadata.k` → `/nodes/3/metadata/k`. */
function pointerOf(field: string): string {
  return '/' + field.replace(/\[(\d+)\]/g, '.$1').split('.').join('/');
}
