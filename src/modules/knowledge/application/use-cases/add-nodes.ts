import { inject, injectable } from 'tsyringe';
import { requireContextInReach, resolveInReach } from '../services/knowledge-reach';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import { actorOf, type CallContext } from '../../../../kernel/call-context';
import type { Clock } from '../../../../kernel/clock';
import type { IdGenerator } from '../../../../kernel/id-generator';
import type { KnowledgeStore } from '../ports/knowledge-store';
import type { Logger } from '../../../../kernel/logger';
import { AlreadyExistsError, InvalidArgumentsError } from '../../../../kernel/errors';
import { projectIdentity, searchLimitBreach, type StoredKnowledgeNode } from '../../domain';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { addNodesSchemas } from '../knowledge.tool-schemas';

/** The tool's input, as its schema in knowledge.tool-schemas.ts describes it. */
export type AddNodesInput = ToolInput<typeof addNodesSchemas>;
/** One node to add (its id is generated, a UUID, when absent). */
export type NewKnowledgeNode = AddNodesInput['nodes'][number];
/** The tool's answer, as its output schema describes it: the project and the ids added, in input order. */
export type AddNodesOutput = ToolOutput<typeof addNodesSchemas>;

/**
 * `add_nodes`: appends nodes to the project's graph. Under the project lock it checks that every parent (and every
 * id a summary's `summarizedSegment` names) exists in the graph or comes earlier in the call, and that no given id is
 * taken; then it appends all nodes in one write. Nothing is written when a check fails — nor when a node's text passes a
 * search limit (domain/search/search-limits.ts), the same on every store.
 */
@injectable()
export class AddNodes implements UseCase<AddNodesInput, AddNodesOutput> {
  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(KnowledgeTokens.KnowledgeIdGenerator) private readonly ids: IdGenerator,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: AddNodesInput, ctx?: CallContext): Promise<AddNodesOutput> {
    // Checked first (a bad projectContext is the first error), resolved once the nodes are valid: the first add of a
    // folder claims the project's plain id, which a refused call must not do.
    projectIdentity(input.projectContext);
    requireContextInReach(input.projectContext, ctx);
    let project = '';
    if (!Array.isArray(input.nodes) || input.nodes.length === 0) {
      throw new InvalidArgumentsError('nodes: expected at least one node', 'nodes');
    }
    const createdAt = new Date(this.clock.now()).toISOString();
    const nodes: StoredKnowledgeNode[] = [];
    const inCall = new Set<string>();
    const given = new Set<string>();
    const external = new Set<string>();
    input.nodes.forEach((n, i) => {
      const id = n.id ?? this.ids.next();
      if (inCall.has(id)) throw new InvalidArgumentsError(`nodes/${i}/id: '${id}' appears twice in this call`, `nodes/${i}/id`);
      // Past PostgreSQL's tsvector limits a store would index the node differently (or fail): refused alike on every
      // store, before the lock or any write.
      const limit = searchLimitBreach(n);
      if (limit) {
        throw new InvalidArgumentsError(`nodes/${i}/thought: ${limit.message}; nothing was added`, `nodes/${i}/thought`, { limit: limit.limit, max: limit.max, size: limit.size });
      }
      const parents = [...new Set(n.parents ?? [])];
      for (const p of parents) {
        if (p === id) throw new InvalidArgumentsError(`nodes/${i}/parents: node '${id}' cannot be its own parent`, `nodes/${i}/parents`);
        if (!inCall.has(p)) external.add(p);
      }
      for (const s of n.summarizedSegment ?? []) if (!inCall.has(s)) external.add(s);
      if (n.id !== undefined) given.add(id);
      inCall.add(id);
      nodes.push(toStored(n, id, project, input.projectContext, parents, createdAt, actorOf(ctx)));
    });
    // A later node of the call named as parent of an earlier one is "not earlier in the same call".
    for (const id of external) {
      if (inCall.has(id)) {
        throw new InvalidArgumentsError(`parents: '${id}' is added later in this call; list a parent before its children`, 'nodes');
      }
    }

    const resolved = await resolveInReach(this.store, input.projectContext, ctx, { claim: true });
    project = resolved.shown;
    for (const n of nodes) n.project = resolved.shown;
    await this.store.withLock(resolved.id, async (graph) => {
      const lookup = new Set([...external, ...given]);
      const found = await graph.findByIds(lookup, ctx?.signal);
      const taken = [...given].filter((id) => found.has(id));
      if (taken.length) throw new AlreadyExistsError('knowledge node', taken.join(', '), `in project '${project}'; nothing was added`);
      const missing = [...external].filter((id) => !found.has(id));
      if (missing.length) {
        throw new InvalidArgumentsError(
          `parents/summarizedSegment: node(s) ${missing.join(', ')} do not exist in project '${project}'; nothing was added`,
          'nodes',
          { missing },
        );
      }
      await graph.append(nodes);
    });
    this.logger.info('knowledge nodes added', { project: resolved.id, count: nodes.length, ids: nodes.length <= 20 ? [...inCall] : undefined });
    return { project, ids: nodes.map((n) => n.id) };
  }
}

function toStored(
  n: NewKnowledgeNode,
  id: string,
  project: string,
  projectContext: string,
  parents: string[],
  createdAt: string,
  actor: { name: string; client?: string },
): StoredKnowledgeNode {
  const node: StoredKnowledgeNode = {
    id,
    project,
    projectContext,
    thought: n.thought,
    role: n.role,
    tags: [...new Set(n.tags ?? [])],
    artifacts: n.artifacts ?? [],
    parents,
    createdAt,
  };
  if (n.verdict !== undefined) node.verdict = n.verdict;
  if (n.verdictReason !== undefined) node.verdictReason = n.verdictReason;
  if (n.verdictReferences !== undefined) node.verdictReferences = n.verdictReferences;
  if (n.target !== undefined) node.target = n.target;
  if (n.summarizedSegment !== undefined) node.summarizedSegment = n.summarizedSegment;
  node.actor = actor;
  return node;
}
