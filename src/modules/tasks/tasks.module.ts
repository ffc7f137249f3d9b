import { Lifecycle, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { PgDatabase } from '../../kernel/postgres/pg-database';
import { GetProjectGraph } from './application/use-cases/get-project-graph';
import { GetTaskDetails } from './application/use-cases/get-task-details';
import { ListTaskProjects } from './application/use-cases/list-task-projects';
import { GetReadyTasks } from './application/use-cases/get-ready-tasks';
import { InitProjectGraph } from './application/use-cases/init-project-graph';
import { ResetTaskNode } from './application/use-cases/reset-task-node';
import { ScaffoldProjectDocs } from './application/use-cases/scaffold-project-docs';
import { StartTask } from './application/use-cases/start-task';
import { ValidateTaskLoop } from './application/use-cases/validate-task-loop';
import { ValidationRunRegistry } from './application/services/validation-run-registry';
import { ValidationRunService, type RunVerdict } from './application/services/validation-run';
import { PlanChanges } from './application/services/plan-changes';
import { AddTasks } from './application/use-cases/add-tasks';
import { UpdateTask } from './application/use-cases/update-task';
import { RemoveTasks } from './application/use-cases/remove-tasks';
import { SplitTask } from './application/use-cases/split-task';
import { ClaimNextTask } from './application/use-cases/claim-next-task';
import { ReleaseTask } from './application/use-cases/release-task';
import type { HostInfo } from './application/ports/host-info';
import { systemTimers, type Clock, type Timers } from '../../kernel/clock';
import type { Logger } from '../../kernel/logger';
import { RandomIdGenerator } from '../../kernel/random-id-generator';
import { LocalHostInfo } from './infrastructure/process/host-info';
import { untrackedWrites, type WritesInProgress } from '../../kernel/writes-in-progress';
import { ProjectLayout } from '../../kernel/files/project-layout';
import type { DataFormatGate } from '../../kernel/files/data-format';
import type { Lifecycle as ServerLifecycle } from '../../kernel/lifecycle';
import { ShellCommandRunner } from './infrastructure/process/shell-command-runner';
import { LocalOrphanedCommands } from './infrastructure/process/orphaned-commands';
import { FileTaskGraphStore } from './infrastructure/file-task-graph-store';
import { FsScaffoldFileWriter } from './infrastructure/fs-scaffold-file-writer';
import { Tokens } from '../../kernel/tokens';
import type { ChangeEvents } from '../../kernel/change-events';
import { ChangePublishingTaskGraphStore } from './infrastructure/change-publishing-task-graph-store';
import { TasksTokens } from './application/tasks.tokens';
import { WorkflowTokens } from '../workflow';
import { taskPlanContractRule } from './application/services/task-plan-contract';
import type { TaskGraphStore } from './application/ports/task-graph-store';
import { TasksChangeReach } from './application/services/tasks-change-reach';
import type { ModuleRegistration } from '../../kernel/module-registration';

/**
 * The tasks module: the task-graph store (files in `<data-dir>/projects/<id>/`), the shell command
 * runner, the registry of validation runs and the validation run service (singletons: they hold the running
 * commands), the host facts for run leases, the scaffold writer and the seven use cases.
 */
export const tasksModule: ModuleRegistration = (container, config) => {
  // A workflow step whose output contract is a task plan is checked as init_project_graph / add_tasks would check it.
  container.register(WorkflowTokens.ContractRules, { useValue: taskPlanContractRule });
  // PostgreSQL when a database URL is configured (its adapter and the driver load only then), else the data dir;
  // either way every write is announced on the change-event port when the container has one (servers do).
  const changes = container.isRegistered(Tokens.ChangeEvents, true) ? container.resolve<ChangeEvents>(Tokens.ChangeEvents) : undefined;
  const published = (store: TaskGraphStore): TaskGraphStore => (changes ? new ChangePublishingTaskGraphStore(store, changes) : store);
  if (config.database) {
    container.register(TasksTokens.TaskGraphStore, {
      useFactory: instanceCachingFactory((c) => {
        const { PgTaskGraphStore } = require('./infrastructure/postgres/pg-task-graph-store') as typeof import('./infrastructure/postgres/pg-task-graph-store');
        return published(new PgTaskGraphStore(c.resolve<PgDatabase>(Tokens.Database)));
      }),
    });
  } else {
    const format = container.isRegistered(Tokens.DataFormat, true) ? container.resolve<DataFormatGate>(Tokens.DataFormat) : undefined;
    container.register(TasksTokens.TaskGraphStore, { useValue: published(new FileTaskGraphStore(new ProjectLayout(config.dataDir), {}, format)) });
  }
  container.register(Tokens.ChangeReachers, { useFactory: instanceCachingFactory((c) => new TasksChangeReach(c.resolve<TaskGraphStore>(TasksTokens.TaskGraphStore))) });
  const runner = new ShellCommandRunner();
  const writes = container.isRegistered(Tokens.WritesInProgress, true) ? container.resolve<WritesInProgress>(Tokens.WritesInProgress) : untrackedWrites;
  // A run's promise ends with its verdict (or its cancel record) written: shutdown waits for it.
  const runs = new ValidationRunRegistry<RunVerdict>(writes);
  container.register(TasksTokens.CommandRunner, { useValue: runner });
  container.register(TasksTokens.ValidationRunRegistry, { useValue: runs });
  const hostInfo = new LocalHostInfo();
  container.register(TasksTokens.HostInfo, { useValue: hostInfo });
  // What a dead server's verification commands left running (workflow sessions record their runs with these facts).
  container.register(Tokens.OrphanedCommands, { useValue: new LocalOrphanedCommands(hostInfo) });
  container.register(TasksTokens.PlanChanges, {
    useFactory: instanceCachingFactory(
      (c) => new PlanChanges(c.resolve<TaskGraphStore>(TasksTokens.TaskGraphStore), c.resolve<Clock>(Tokens.Clock), hostInfo.host, config.claimTtlMs),
    ),
  });
  if (!container.isRegistered(Tokens.Timers, true)) container.register(Tokens.Timers, { useValue: systemTimers });
  // One validation run service per container: it holds the runs in progress (with the registry) for every call.
  container.register(TasksTokens.ValidationRunService, {
    useFactory: instanceCachingFactory(
      (c) =>
        new ValidationRunService(
          {
            store: c.resolve<TaskGraphStore>(TasksTokens.TaskGraphStore),
            runner,
            runs,
            clock: c.resolve<Clock>(Tokens.Clock),
            timers: c.resolve<Timers>(Tokens.Timers),
            ids: new RandomIdGenerator(),
            host: c.resolve<HostInfo>(TasksTokens.HostInfo),
            logger: c.resolve<Logger>(Tokens.Logger),
          },
          { outputTailBytes: config.outputTailBytes, claimTtlMs: config.claimTtlMs },
        ),
    ),
  });
  container.register(TasksTokens.ScaffoldFileWriter, { useValue: new FsScaffoldFileWriter() });
  const singleton = { lifecycle: Lifecycle.Singleton };
  container.register(TasksTokens.InitProjectGraph, { useClass: InitProjectGraph }, singleton);
  container.register(TasksTokens.GetReadyTasks, { useClass: GetReadyTasks }, singleton);
  container.register(TasksTokens.GetProjectGraph, { useClass: GetProjectGraph }, singleton);
  container.register(TasksTokens.StartTask, { useClass: StartTask }, singleton);
  container.register(TasksTokens.ValidateTaskLoop, { useClass: ValidateTaskLoop }, singleton);
  container.register(TasksTokens.ResetTaskNode, { useClass: ResetTaskNode }, singleton);
  container.register(TasksTokens.ScaffoldProjectDocs, { useClass: ScaffoldProjectDocs }, singleton);
  container.register(TasksTokens.ListTaskProjects, { useClass: ListTaskProjects }, singleton);
  container.register(TasksTokens.GetTaskDetails, { useClass: GetTaskDetails }, singleton);
  container.register(TasksTokens.AddTasks, { useClass: AddTasks }, singleton);
  container.register(TasksTokens.UpdateTask, { useClass: UpdateTask }, singleton);
  container.register(TasksTokens.RemoveTasks, { useClass: RemoveTasks }, singleton);
  container.register(TasksTokens.SplitTask, { useClass: SplitTask }, singleton);
  container.register(TasksTokens.ClaimNextTask, { useClass: ClaimNextTask }, singleton);
  container.register(TasksTokens.ReleaseTask, { useClass: ReleaseTask }, singleton);
  // On server shutdown, running validations are cancelled (tasks back to IN_PROGRESS) and their process trees killed.
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<ServerLifecycle>(Tokens.Lifecycle).onShutdown(
      'tasks',
      () => shutdownTasks(container),
      () => killAllTaskCommands(container),
    );
  }
};

/**
 * For server shutdown: cancels every validation run of this process (each node goes back to IN_PROGRESS, waiting at
 * most `timeoutMs`, default 3 s), then kills whatever command process tree is still running.
 */
export async function shutdownTasks(container: DependencyContainer, timeoutMs = 3_000): Promise<void> {
  if (container.isRegistered(TasksTokens.ValidationRunRegistry, true)) {
    await container.resolve<ValidationRunRegistry>(TasksTokens.ValidationRunRegistry).cancelAll(timeoutMs);
  }
  killAllTaskCommands(container);
}

/** Synchronously kills every running validation command's process tree (usable from `process.on('exit')`). */
export function killAllTaskCommands(container: DependencyContainer): void {
  if (container.isRegistered(TasksTokens.CommandRunner, true)) {
    container.resolve<ShellCommandRunner>(TasksTokens.CommandRunner).killAll();
  }
}
