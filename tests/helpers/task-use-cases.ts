import { systemTimers, type Clock, type Timers } from '../../src/kernel/clock';
import type { PathPolicy } from '../../src/kernel/path-policy';
import type { TaskGraphStore } from '../../src/modules/tasks/application/ports/task-graph-store';
import { PlanChanges } from '../../src/modules/tasks/application/services/plan-changes';
import type { ValidationRunService } from '../../src/modules/tasks/application/services/validation-run';
import { AddTasks } from '../../src/modules/tasks/application/use-cases/add-tasks';
import { ClaimNextTask } from '../../src/modules/tasks/application/use-cases/claim-next-task';
import { GetProjectGraph } from '../../src/modules/tasks/application/use-cases/get-project-graph';
import { GetReadyTasks } from '../../src/modules/tasks/application/use-cases/get-ready-tasks';
import { GetTaskDetails } from '../../src/modules/tasks/application/use-cases/get-task-details';
import { InitProjectGraph } from '../../src/modules/tasks/application/use-cases/init-project-graph';
import { ReleaseTask } from '../../src/modules/tasks/application/use-cases/release-task';
import { RemoveTasks } from '../../src/modules/tasks/application/use-cases/remove-tasks';
import { ResetTaskNode } from '../../src/modules/tasks/application/use-cases/reset-task-node';
import { SplitTask } from '../../src/modules/tasks/application/use-cases/split-task';
import { StartTask } from '../../src/modules/tasks/application/use-cases/start-task';
import { UpdateTask } from '../../src/modules/tasks/application/use-cases/update-task';
import { ValidateTaskLoop } from '../../src/modules/tasks/application/use-cases/validate-task-loop';

/** Every task use case over one store, wired by hand as tasks.module.ts does (host name and claim TTL given). */
export function taskUseCases(opts: {
  store: TaskGraphStore;
  clock: Clock;
  service: ValidationRunService;
  policy: PathPolicy;
  host: string;
  claimTtlMs?: number;
  timers?: Timers;
}) {
  const { store, clock, service, policy } = opts;
  const plan = new PlanChanges(store, clock, opts.host, opts.claimTtlMs);
  return {
    plan,
    init: new InitProjectGraph(store, policy, clock, service, plan),
    ready: new GetReadyTasks(store, plan),
    graph: new GetProjectGraph(store, plan),
    start: new StartTask(store, plan),
    validate: new ValidateTaskLoop(store, service, clock, opts.timers ?? systemTimers, plan),
    reset: new ResetTaskNode(store, service, plan),
    add: new AddTasks(store, plan),
    update: new UpdateTask(store, plan),
    remove: new RemoveTasks(store, plan),
    split: new SplitTask(store, plan),
    claimNext: new ClaimNextTask(store, plan),
    release: new ReleaseTask(store, plan),
    details: new GetTaskDetails(store),
  };
}
