import type { RunLease, TaskNode } from './task-graph';
import { TaskStatus } from './task-status';

/** A lease lasts 60 s and its owner renews it every 20 s, so two missed renewals still leave it held. */
export const LEASE_TTL_MS = 60_000;
export const LEASE_RENEW_MS = 20_000;

/**
 * Legacy rule for a VALIDATING node without a lease (written before leases): stale once older than its
 * `timeout_ms` plus this margin (30 s).
 */
export const STALE_VALIDATION_MARGIN_MS = 30_000;

/** What the deciding process knows about itself and its host; `isAlive` and `runsHere` are asked, never I/O here. */
export interface HostFacts {
  host: string;
  bootId: string | null;
  /** The deciding process's own pid. */
  pid: number;
  /** Whether a process of this host with `pid` is alive. */
  isAlive(pid: number): boolean;
  /** Whether this process has run `runId` in progress (its in-memory run registry). */
  runsHere(runId: string): boolean;
}

/** Facts of a process that knows nothing about its host: only lease expiry (and the legacy rule) apply. */
export const NO_HOST_FACTS: HostFacts = {
  host: '',
  bootId: null,
  pid: -1,
  isAlive: () => true,
  runsHere: () => false,
};

/** Whether a VALIDATING node's run can be taken over now, and why. */
export interface RunOwnership {
  recoverable: boolean;
  /** Agent-readable reason: `its owner (pid 123 on host h) is gone`, `held by pid 123 on host h until …`. */
  reason: string;
}

/** A new lease for `runId` owned by `facts`' process, lapsing {@link LEASE_TTL_MS} after `nowMs`. */
export function newLease(facts: Pick<HostFacts, 'host' | 'bootId' | 'pid'>, runId: string, nowMs: number): RunLease {
  return { host: facts.host, boot_id: facts.bootId, pid: facts.pid, run_id: runId, expires_at: new Date(nowMs + LEASE_TTL_MS).toISOString() };
}

/**
 * The recovery rule of a VALIDATING node. Recoverable at once when: its lease expired; its owner was on this host and
 * the host rebooted (boot id changed) or the owner pid is gone; or the owner is this very process and the run is no
 * longer in progress here (its verdict could not be written). Without a lease (older files), the node is recoverable
 * once older than its `timeout_ms` + {@link STALE_VALIDATION_MARGIN_MS}. Nodes not VALIDATING are not "recoverable".
 */
export function runOwnership(node: TaskNode, nowMs: number, facts: HostFacts): RunOwnership {
  if (node.status !== TaskStatus.Validating) return { recoverable: false, reason: `task '${node.id}' is ${node.status}, not VALIDATING` };
  const lease = node.owner;
  if (!lease) {
    const since = node.validating_since ? Date.parse(node.validating_since) : NaN;
    if (Number.isNaN(since) || nowMs - since > node.timeout_ms + STALE_VALIDATION_MARGIN_MS) {
      return { recoverable: true, reason: `its run (no owner recorded) began at ${node.validating_since ?? 'an unknown time'}, longer ago than timeout_ms + 30 s` };
    }
    return { recoverable: false, reason: 'its command may still be running (no owner recorded; recoverable after timeout_ms + 30 s)' };
  }
  const who = `pid ${lease.pid} on host ${lease.host}`;
  const expires = Date.parse(lease.expires_at);
  if (Number.isNaN(expires) || nowMs > expires) return { recoverable: true, reason: `the lease of its owner (${who}) expired at ${lease.expires_at}` };
  if (lease.host === facts.host) {
    if (lease.boot_id && facts.bootId && lease.boot_id !== facts.bootId) {
      return { recoverable: true, reason: `its owner (${who}) ran before the host restarted` };
    }
    if (lease.pid === facts.pid) {
      if (!facts.runsHere(lease.run_id)) return { recoverable: true, reason: `its run ended in this server process without recording a verdict` };
      return { recoverable: false, reason: `its command is running in this server process` };
    }
    if (!facts.isAlive(lease.pid)) return { recoverable: true, reason: `its owner (${who}) is gone` };
  }
  return { recoverable: false, reason: `its command is running in another server process (${who}, lease until ${lease.expires_at})` };
}
