import { ClaimedError } from '../../../kernel/errors';
import type { Actor } from '../../../kernel/identity';
import type { Claimant, TaskClaim, TaskGraph, TaskNode, TaskTransition } from './task-graph';
import { TaskStatus } from './task-status';

/** Default claim TTL: 30 minutes (`--claim-ttl`). */
export const DEFAULT_CLAIM_TTL_MS = 30 * 60 * 1000;

/** The claimant as one line: `alice (agent builder-1) on host h`, `anonymous on host h`. */
export function describeClaimant(c: Claimant): string {
  const who = c.identity ?? 'anonymous';
  return `${who}${c.agent ? ` (agent ${c.agent})` : ''} on host ${c.host}`;
}

/** The actor a transition made by `who` keeps: the identity's name (`anonymous` without one) and the client's name. */
export function transitionActor(who: Claimant): Actor {
  const name = who.identity ?? 'anonymous';
  return who.client ? { name, client: who.client } : { name };
}

export function sameClaimant(a: Claimant, b: Claimant): boolean {
  return a.identity === b.identity && a.agent === b.agent && a.host === b.host;
}

/**
 * The node's claim while it holds (not lapsed at `nowMs`). A VALIDATING node keeps its status when its claim lapses
 * (the run lease protects a command still running), but another agent may then recover an orphaned run.
 */
export function liveClaim(node: TaskNode, nowMs: number): TaskClaim | undefined {
  const claim = node.claim;
  if (!claim) return undefined;
  const expires = Date.parse(claim.expires_at);
  return Number.isNaN(expires) || nowMs >= expires ? undefined : claim;
}

/** Whether `who` may act on the node now: it is unclaimed, its claim lapsed, or `who` holds it. */
export function mayAct(node: TaskNode, who: Claimant, nowMs: number): boolean {
  const claim = liveClaim(node, nowMs);
  return !claim || sameClaimant(claim, who);
}

/**
 * Refuses `call` by `who` on a task another claimant holds, naming the claimant and when the claim lapses.
 * @throws ClaimedError
 */
export function requireClaimant(node: TaskNode, who: Claimant, nowMs: number, call: string): void {
  const claim = liveClaim(node, nowMs);
  if (!claim || sameClaimant(claim, who)) return;
  const lapse = `the claim lapses at ${claim.expires_at} unless renewed`;
  throw new ClaimedError(
    `task '${node.id}' is claimed by ${describeClaimant(claim)} since ${claim.since} (${lapse}); ${call} is refused for ${describeClaimant(who)} — ` +
      'pick another task (claim_next_task) or wait for the claimant to release it',
    { node: node.id, claimant: describeClaimant(claim), expiresAt: claim.expires_at },
  );
}

/** A claim for `who` from `nowMs`, lapsing `ttlMs` later (renewal keeps `since` from `previous` of the same claimant). */
export function claimFor(who: Claimant, nowMs: number, ttlMs: number, previous?: TaskClaim): TaskClaim {
  const since = previous && sameClaimant(previous, who) ? previous.since : new Date(nowMs).toISOString();
  return { identity: who.identity, agent: who.agent, host: who.host, since, expires_at: new Date(nowMs + ttlMs).toISOString() };
}

/** The graph with node `nodeId`'s claim set (`claim` undefined removes it); no status change. */
export function setClaim(graph: TaskGraph, nodeId: string, claim: TaskClaim | undefined): TaskGraph {
  return {
    ...graph,
    nodes: graph.nodes.map((n) => {
      if (n.id !== nodeId) return n;
      const { claim: _old, ...rest } = n;
      return claim ? { ...rest, claim } : rest;
    }),
  };
}

/** What lapsing expired claims did: the new graph (the same object when nothing lapsed), status changes, lapsed ids. */
export interface LapseResult {
  graph: TaskGraph;
  transitions: TaskTransition[];
  lapsed: { node: string; claim: TaskClaim }[];
}

/**
 * Applies every lapsed claim: an IN_PROGRESS task goes back to READY, a RETRYING one stays RETRYING (both are
 * startable again), the claim is removed and the attempt count kept. A VALIDATING task's claim never lapses while its
 * command runs (the run lease decides that). A claim left on a task that is no longer started is dropped.
 */
export function lapseClaims(graph: TaskGraph, at: { iso: string; ms: number }): LapseResult {
  const transitions: TaskTransition[] = [];
  const lapsed: LapseResult['lapsed'] = [];
  let changed = false;
  const nodes = graph.nodes.map((n) => {
    // A VALIDATING task's run ends on its own (or is recovered through its lease); its claim is settled after that.
    if (n.status === TaskStatus.Validating) return n;
    if (!n.claim || liveClaim(n, at.ms)) {
      if (!n.claim || n.status === TaskStatus.InProgress || n.status === TaskStatus.Retrying) return n;
    }
    const { claim, ...rest } = n;
    changed = true;
    if (n.status !== TaskStatus.InProgress && n.status !== TaskStatus.Retrying) return rest;
    lapsed.push({ node: n.id, claim: claim! });
    if (n.status === TaskStatus.Retrying) return rest;
    transitions.push({ node: n.id, from: n.status, to: TaskStatus.Ready, time: at.iso, attempt: n.current_attempt });
    return { ...rest, status: TaskStatus.Ready, updated_at: at.iso };
  });
  if (!changed) return { graph, transitions, lapsed };
  return { graph: { ...graph, nodes, updated_at: at.iso }, transitions, lapsed };
}
