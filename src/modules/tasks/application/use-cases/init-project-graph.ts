import { inject, injectable } from 'tsyringe';
import { reachOf } from '../../../../kernel/reach';
import { AlreadyExistsError, ConflictError } from '../../../../kernel/errors';
import { createTaskGraph, runOwnership, transitionActor, TaskStatus, type TaskNodeDefinition } from '../../domain';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import type { Clock } from '../../../../kernel/clock';
import type { CallContext } from '../../../../kernel/call-context';
import type { PathPolicy } from '../../../../kernel/path-policy';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import type { ValidationRunService } from '../services/validation-run';
import { projectGraphView, RECENT_HISTORY, timeOf, type ProjectGraphView } from '../services/task-graph-views';
import type { PlanChanges } from '../services/plan-changes';
import { projectIdFromName } from '../../../../kernel/project-id';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { initProjectGraphSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type InitProjectGraphInput = ToolInput<typeof initProjectGraphSchemas>;

/**
 * `init_project_graph`: creates a project's task DAG (nodes without dependencies READY, the others PENDING).
 * Refuses an invalid graph (duplicates, unknown dependencies, cycles, empty), a projectRoot outside the allowed roots
 * or not an existing directory, an existing project unless `replace`, and a replace while a command is running.
 */
@injectable()
export class InitProjectGraph implements UseCase<InitProjectGraphInput, ToolOutput<typeof initProjectGraphSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(Tokens.PathPolicy) private readonly paths: PathPolicy,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(TasksTokens.ValidationRunService) private readonly runs: ValidationRunService,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: InitProjectGraphInput, ctx?: CallContext): Promise<ProjectGraphView> {
    // The domain's slug (what the store's projectIdOf uses), called here so a refused name names this tool's field.
    const projectId = projectIdFromName(input.projectName, 'projectName');
    const projectRoot = await this.paths.resolveAllowedDirectory(input.projectRoot, 'projectRoot', {
      mustExist: true,
      clientRoots: ctx?.clientRoots,
      identity: ctx?.identity,
    });
    const now = timeOf(this.clock.now());
    const graph = createTaskGraph({ projectId, projectName: input.projectName, projectRoot, nodes: input.nodes, now: now.iso });
    const who = this.plan.claimant(ctx, input.agent);
    const reason = input.reason?.replace(/\s+/g, ' ').trim().slice(0, 300) || `created the plan with ${graph.nodes.length} task(s)${input.replace ? ' (replacing the previous one)' : ''}`;
    const revision = await this.store.create(graph, {
      replace: input.replace ?? false,
      history: { time: now.iso, actor: who, action: 'init_project_graph', reason, nodes: [] },
      actor: transitionActor(who),
      check: (existing) => {
        // Another identity's project (outside the caller's roots) is never replaced, nor said to be where it is.
        if (!reachOf(ctx).covers(existing.project_root)) throw new AlreadyExistsError('project', projectId, 'it is not yours to replace: choose another projectName');
        const facts = this.runs.hostFacts();
        const running = existing.nodes.filter((n) => n.status === TaskStatus.Validating && !runOwnership(n, now.ms, facts).recoverable);
        if (running.length) {
          throw new ConflictError(
            TaskMessages.replaceWhileRunning(projectId, running.map((n) => n.id)),
            { project: projectId, nodes: running.map((n) => n.id) },
          );
        }
      },
    });
    return projectGraphView({ ...graph, revision }, await this.store.readHistory(projectId, { limit: RECENT_HISTORY }));
  }
}
