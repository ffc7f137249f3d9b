import type { CallContext } from '../../../../kernel/call-context';
import type { Clock } from '../../../../kernel/clock';
import { LOCAL_IDENTITY_NAME } from '../../../../kernel/identity';
import { checkRevision, DEFAULT_CLAIM_TTL_MS, describeClaimant, lapseClaims, stampActor, transitionActor, type Claimant, type TaskGraph, type TaskTransition } from '../../domain';
import type { NewPlanChange, TaskGraphStore } from '../ports/task-graph-store';
import { requireInReach, timeOf } from './task-graph-views';
import type { Reach } from '../../../../kernel/reach';

/** What one plan change decides inside the compare-and-set: the graph to write (none: nothing), its log and history. */
export interface PlanWrite<T> {
  graph?: TaskGraph;
  transitions?: readonly TaskTransition[];
  /** The tasks the change concerns (for the history; get_task_details shows a task's entries). */
  nodes: readonly string[];
  /** One line saying what changed (used when the caller gave no reason of its own). */
  reason: string;
  value: T;
}

/** Who calls and why: the claimant, the tool, the compare-and-set revision and the caller's own one-line reason. */
export interface PlanCall {
  who: Claimant;
  /** The caller's reach: a project outside it is answered as a missing one (`project` names it as the caller did). */
  reach?: Reach;
  project?: string;
  action: string;
  expectedRevision?: number;
  reason?: string;
}

/** A longest history line: agents' reasons are cut to one line of 300 characters. */
const MAX_REASON = 300;

/**
 * The caller's identity name (`ctx.identity`: the verified token's identity over HTTP, `local` on stdio and for
 * calls made without a context, as noopCallContext gives).
 */
export function identityOf(ctx: CallContext | undefined): string | null {
  return ctx?.identity?.name || LOCAL_IDENTITY_NAME;
}

/**
 * Every change of a project's plan goes through here: one compare-and-set under the store's lock that first puts
 * lapsed claims back (each logged in the history), checks `expectedRevision`, applies the change and writes the graph,
 * its status changes and its history entry in one commit. Answers carry the revision written.
 */
export class PlanChanges {
  constructor(
    private readonly store: TaskGraphStore,
    private readonly clock: Clock,
    private readonly host: string,
    /** How long a claim holds without a call of its claimant (`--claim-ttl`). */
    readonly claimTtlMs: number = DEFAULT_CLAIM_TTL_MS,
  ) {}

  /** The claimant of a call: its identity, the agent name it gave and this server's host (and its MCP client's name). */
  claimant(ctx: CallContext | undefined, agent: string | undefined): Claimant {
    const who: Claimant = { identity: identityOf(ctx), agent: agent ?? null, host: this.host };
    if (ctx?.client) who.client = ctx.client;
    return who;
  }

  now(): { iso: string; ms: number } {
    return timeOf(this.clock.now());
  }

  /**
   * Runs `fn` on the current graph (lapsed claims already put back) inside one compare-and-set.
   * @throws ConflictError when `expectedRevision` is stale (naming the current revision); whatever `fn` throws.
   */
  async change<T>(projectId: string, call: PlanCall, fn: (graph: TaskGraph, at: { iso: string; ms: number }) => PlanWrite<T>): Promise<{ value: T; revision: number; graph: TaskGraph }> {
    return this.store.update(projectId, (current) => {
      if (call.reach) requireInReach(current, call.project ?? projectId, call.reach);
      checkRevision(current, call.expectedRevision);
      const at = this.now();
      const lapse = lapseClaims(current, at);
      const history: NewPlanChange[] = lapse.lapsed.map(({ node, claim }) => ({
        time: at.iso,
        actor: { identity: claim.identity, agent: claim.agent, host: claim.host },
        action: 'claim_lapsed',
        reason: `the claim of ${describeClaimant(claim)} on '${node}' lapsed at ${claim.expires_at} (not renewed): the task is startable again, attempts kept`,
        nodes: [node],
      }));
      const out = fn(lapse.graph, at);
      const wrote = out.graph ?? (lapse.lapsed.length ? lapse.graph : undefined);
      if (out.graph) history.push({ time: at.iso, actor: call.who, action: call.action, reason: oneLine(call.reason) ?? out.reason, nodes: [...out.nodes] });
      const revision = wrote ? current.revision + 1 : current.revision;
      return {
        graph: wrote,
        // Every status change the call made carries its actor (a lapse too: this call put the task back).
        transitions: stampActor([...lapse.transitions, ...(out.transitions ?? [])], transitionActor(call.who)),
        history,
        value: { value: out.value, revision, graph: wrote ? { ...wrote, revision } : current },
      };
    });
  }

  /**
   * A read that puts lapsed claims back first (written, so every reader and the log agree), then the graph. The
   * transitions it writes carry the reader as their actor.
   */
  async settled(projectId: string, graph: TaskGraph, ctx?: CallContext): Promise<TaskGraph> {
    if (!lapseClaims(graph, this.now()).lapsed.length) return graph;
    const { graph: after } = await this.change(projectId, { who: this.claimant(ctx, undefined), action: 'read' }, () => ({ nodes: [], reason: '', value: undefined }));
    return after;
  }
}

function oneLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > MAX_REASON ? line.slice(0, MAX_REASON - 1) + '…' : line;
}
