import { Lifecycle, type DependencyContainer } from 'tsyringe';
import { GetProjectGraph } from '../../application/use-cases/get-project-graph';
import { GetReadyTasks } from '../../application/use-cases/get-ready-tasks';
import { InitProjectGraph } from '../../application/use-cases/init-project-graph';
import { ResetTaskNode } from '../../application/use-cases/reset-task-node';
import { ScaffoldProjectDocs } from '../../application/use-cases/scaffold-project-docs';
import { StartTask } from '../../application/use-cases/start-task';
import { ValidateTaskLoop } from '../../application/use-cases/validate-task-loop';
import { ValidationRunRegistry } from '../../application/services/validation-run-registry';
import { ProjectLayout } from '../../infrastructure/files/project-layout';
import type { DataFormatGate } from '../../infrastructure/files/data-format';
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
  const format = container.isRegistered(Tokens.DataFormat, true) ? container.resolve<DataFormatGate>(Tokens.DataFormat) : undefined;
  container.register(Tokens.TaskGraphStore, { useValue: new FileTaskGraphStore(new ProjectLayout(config.dataDir), {}, format) });
  container.register(Tokens.CommandRunner, { useValue: new ShellCommandRunner() });
  container.register(Tokens.ValidationRunRegistry, { useValue: new ValidationRunRegistry() });
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
