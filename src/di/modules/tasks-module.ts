import { instanceCachingFactory, Lifecycle, type DependencyContainer } from 'tsyringe';
import { GetProjectGraph } from '../../application/use-cases/get-project-graph';
import { GetReadyTasks } from '../../application/use-cases/get-ready-tasks';
import { InitProjectGraph } from '../../application/use-cases/init-project-graph';
import { ResetTaskNode } from '../../application/use-cases/reset-task-node';
import { ScaffoldProjectDocs } from '../../application/use-cases/scaffold-project-docs';
import { StartTask } from '../../application/use-cases/start-task';
import { ValidateTaskLoop } from '../../application/use-cases/validate-task-loop';
import { systemTimers, type Clock, type Timers } from '../../application/ports/clock';
import type { Logger } from '../../application/ports/logger';
import { ValidationRunRegistry } from '../../application/services/validation-run-registry';
import { ValidationRunService, type RunVerdict } from '../../application/services/validation-run';
import { RandomIdGenerator } from '../../infrastructure/knowledge/random-id-generator';
import { LocalHostInfo } from '../../infrastructure/process/host-info';
import { ProjectLayout } from '../../infrastructure/files/project-layout';
import type { Lifecycle as ServerLifecycle } from '../../infrastructure/lifecycle/lifecycle';
import { ShellCommandRunner } from '../../infrastructure/process/shell-command-runner';
import { FileTaskGraphStore } from '../../infrastructure/tasks/file-task-graph-store';
import { FsScaffoldFileWriter } from '../../infrastructure/tasks/fs-scaffold-file-writer';
import { Tokens } from '../tokens';
import type { ModuleRegistration } from './index';

/**
 * The tasks module: the file task-graph store in `<data-dir>/projects/<id>/`, the shell command runner and the
 * registry of validation runs (both singletons: they hold the running commands), the scaffold writer and the seven
 * use cases.
 */
export const tasksModule: ModuleRegistration = (container, config) => {
  const store = new FileTaskGraphStore(new ProjectLayout(config.dataDir));
  const runner = new ShellCommandRunner();
  const runs = new ValidationRunRegistry<RunVerdict>();
  container.register(Tokens.TaskGraphStore, { useValue: store });
  container.register(Tokens.CommandRunner, { useValue: runner });
  container.register(Tokens.ValidationRunRegistry, { useValue: runs });
  container.register(Tokens.HostInfo, { useValue: new LocalHostInfo() });
  if (!container.isRegistered(Tokens.Timers, true)) container.register(Tokens.Timers, { useValue: systemTimers });
  container.register(Tokens.ValidationRunService, {
    useFactory: instanceCachingFactory(
      (c) =>
        new ValidationRunService(
          {
            store,
            runner,
            runs,
            clock: c.resolve<Clock>(Tokens.Clock),
            timers: c.resolve<Timers>(Tokens.Timers),
            ids: new RandomIdGenerator(),
            host: c.resolve(Tokens.HostInfo),
            logger: c.resolve<Logger>(Tokens.Logger),
          },
          { outputTailBytes: config.outputTailBytes },
        ),
    ),
  });
  container.register(Tokens.ScaffoldFileWriter, { useValue: new FsScaffoldFileWriter() });
  const singleton = { lifecycle: Lifecycle.Singleton };
  container.register(Tokens.InitProjectGraph, { useClass: InitProjectGraph }, singleton);
  container.register(Tokens.GetReadyTasks, { useClass: GetReadyTasks }, singleton);
  container.register(Tokens.GetProjectGraph, { useClass: GetProjectGraph }, singleton);
  container.register(Tokens.StartTask, { useClass: StartTask }, singleton);
  container.register(Tokens.ValidateTaskLoop, { useClass: ValidateTaskLoop }, singleton);
  container.register(Tokens.ResetTaskNode, { useClass: ResetTaskNode }, singleton);
  container.register(Tokens.ScaffoldProjectDocs, { useClass: ScaffoldProjectDocs }, singleton);
  // On server shutdown, running validations are cancelled (tasks back to IN_PROGRESS) and their process trees killed.
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<ServerLifecycle>(Tokens.Lifecycle).onShutdown('tasks', () => shutdownTasks(container));
  }
};

/**
 * For server shutdown: cancels every validation run of this process (each node goes back to IN_PROGRESS, waiting at
 * most `timeoutMs`, default 3 s), then kills whatever command process tree is still running.
 */
export async function shutdownTasks(container: DependencyContainer, timeoutMs = 3_000): Promise<void> {
  if (container.isRegistered(Tokens.ValidationRunRegistry, true)) {
    await container.resolve<ValidationRunRegistry>(Tokens.ValidationRunRegistry).cancelAll(timeoutMs);
  }
  killAllTaskCommands(container);
}

/** Synchronously kills every running validation command's process tree (usable from `process.on('exit')`). */
export function killAllTaskCommands(container: DependencyContainer): void {
  if (container.isRegistered(Tokens.CommandRunner, true)) {
    container.resolve<ShellCommandRunner>(Tokens.CommandRunner).killAll();
  }
}
