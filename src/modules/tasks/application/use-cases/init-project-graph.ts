import { inject, injectable } from 'tsyringe';
import { ConflictError } from '../../../../kernel/errors';
import { createTaskGraph, isStaleValidation, TaskStatus, type TaskNodeDefinition } from '../../domain';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import type { Clock } from '../../../../kernel/clock';
import type { PathPolicy } from '../../../../kernel/path-policy';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { projectGraphView, timeOf, type ProjectGraphView } from '../services/task-graph-views';
import { projectIdFromName } from '../../../../kernel/project-id';

export interface InitProjectGraphInput {
  projectName: string;
  /** An existing directory inside the allowed roots; validation commands run there. */
  projectRoot: string;
  nodes: TaskNodeDefinition[];
  /** Replace an existing graph of the same project. Default false. */
  replace?: boolean;
}

/**
 * `init_project_graph`: creates a project's task DAG (nodes without dependencies READY, the others PENDING).
 * Refuses an invalid graph (duplicates, unknown dependencies, cycles, empty), a projectRoot outside the allowed roots
 * or not an existing directory, an existing project unless `replace`, and a replace while a command is running.
 */
@injectable()
export class InitProjectGraph implements UseCase<InitProjectGraphInput, ProjectGraphView> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(Tokens.PathPolicy) private readonly paths: PathPolicy,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  async execute(input: InitProjectGraphInput): Promise<ProjectGraphView> {
    // The domain's slug (what the store's projectIdOf uses), called here so a refused name names this tool's field.
    const projectId = projectIdFromName(input.projectName, 'projectName');
    const projectRoot = await this.paths.resolveAllowedDirectory(input.projectRoot, 'projectRoot', { mustExist: true });
    const now = timeOf(this.clock.now());
    const graph = createTaskGraph({ projectId, projectName: input.projectName, projectRoot, nodes: input.nodes, now: now.iso });
    await this.store.create(graph, {
      replace: input.replace ?? false,
      check: (existing) => {
        const running = existing.nodes.filter((n) => n.status === TaskStatus.Validating && !isStaleValidation(n, now.ms));
        if (running.length) {
          throw new ConflictError(
            `project '${projectId}' cannot be replaced while task(s) ${running.map((n) => n.id).join(', ')} are VALIDATING`,
            { project: projectId, nodes: running.map((n) => n.id) },
          );
        }
      },
    });
    return projectGraphView(graph);
  }
}
