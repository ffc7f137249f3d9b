import { CancelledError, CommandFailedError, ConflictError, StorageError, isWorkgraphError } from '../../../../kernel/errors';
import {
  applyTaskEvent,
  claimFor,
  DEFAULT_CLAIM_TTL_MS,
  DEFAULT_OUTPUT_TAIL_BYTES,
  requireClaimant,
  setClaim,
  stampActor,
  transitionActor,
  type Claimant,
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  newLease,
  runOwnership,
  TaskStatus,
  type HostFacts,
  type RunOutcome,
  type TaskEvent,
  type TaskGraph,
  type TaskNode,
} from '../../domain';
import type { Clock, Timers } from '../../../../kernel/clock';
import type { CommandResult, CommandRunner } from '../../../../kernel/command-runner';
import type { HostInfo } from '../ports/host-info';
import type { IdGenerator } from '../../../../kernel/id-generator';
import type { Logger } from '../../../../kernel/logger';
import type { TaskGraphChange, TaskGraphStore } from '../ports/task-graph-store';
import { TaskMessages } from './task-messages';
import { timeOf } from './task-graph-views';
import { ValidationRunRegistry, type ActiveValidationRun } from './validation-run-registry';

/** How a run ended, for the caller that waited: the node after the verdict and the dependents it unlocked. */
export interface RunVerdict {
  node: TaskNode;
  unlocked: string[];
  /** The graph revision the verdict wrote. */
  revision: number;
}

/** What the claim hands back: the node as claimed, where to run, and the verdict when there was nothing to run. */
interface Claim {
  node: TaskNode;
  projectRoot: string;
  verdict?: RunVerdict;
}

export interface ValidationRunDeps {
  store: TaskGraphStore;
  runner: CommandRunner;
  runs: ValidationRunRegistry<RunVerdict>;
  clock: Clock;
  timers: Timers;
  ids: IdGenerator;
  host: HostInfo;
  logger: Logger;
}

export interface ValidationRunOptions {
  /** Bytes of each output stream kept for answers unless a node sets its own (`--output-tail`). Default 8 KiB. */
  outputTailBytes?: number;
  /** How long a claim holds without a call of its claimant (`--claim-ttl`). Default 30 minutes. */
  claimTtlMs?: number;
}

/** The claimant of a run started without one (the library API): anonymous on this host. */
const NOBODY = (host: string): Claimant => ({ identity: null, agent: null, host });

/**
 * One validation run of a task node, as a service: claim the node (VALIDATING, with this process's lease), run its
 * command outside the lock while renewing the lease, record the verdict. The run lives in the registry, not in the
 * call that started it, so later calls wait for the same run. All time goes through the clock and timers ports and
 * run ids through the id port.
 */
export class ValidationRunService {
  private readonly outputTailBytes: number;
  private readonly claimTtlMs: number;

  constructor(private readonly deps: ValidationRunDeps, opts: ValidationRunOptions = {}) {
    this.outputTailBytes = opts.outputTailBytes ?? DEFAULT_OUTPUT_TAIL_BYTES;
    this.claimTtlMs = opts.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
  }

  /** The run of a node in progress in this process, if any. */
  active(projectId: string, nodeId: string): ActiveValidationRun<RunVerdict> | undefined {
    return this.deps.runs.activeRun(ValidationRunRegistry.keyOf(projectId, nodeId));
  }

  /** What the lease rule needs to know about this process. */
  hostFacts(): HostFacts {
    const { host, runs } = this.deps;
    return { host: host.host, bootId: host.bootId, pid: host.pid, isAlive: (pid) => host.isAlive(pid), runsHere: (id) => runs.runsHere(id) };
  }

  /**
   * Before a VALIDATING node is taken over (run again, reset): when its run is orphaned and its owner ran on this host
   * in this boot, what the owner's command left running is killed first (see HostInfo.stopRun), so two runs of one
   * task never overlap. A live owner's run is not recoverable and is never touched; one on another host cannot be
   * reached and is waited for by its lease. Call under the project's lock, with the node as stored.
   */
  stopOrphanedRun(node: TaskNode | undefined): void {
    const lease = node?.owner;
    if (!node || node.status !== TaskStatus.Validating || !lease) return;
    const facts = this.hostFacts();
    if (lease.host !== facts.host || (lease.boot_id && facts.bootId && lease.boot_id !== facts.bootId)) return;
    if (!runOwnership(node, this.deps.clock.now(), facts).recoverable) return;
    const found = this.deps.host.stopRun(lease);
    if (found) this.deps.logger.warn('killed what a dead server left of a validation run', { node: node.id, runId: lease.run_id, ownerPid: lease.pid, processes: found });
  }

  /**
   * Starts a run of the node (registered synchronously, so a concurrent caller finds it) for `who`, who must hold the
   * task's claim or find it unclaimed (then takes it); the claim is renewed.
   */
  start(projectId: string, nodeId: string, who: Claimant = NOBODY(this.deps.host.host)): ActiveValidationRun<RunVerdict> {
    const runId = this.deps.ids.next();
    return this.deps.runs.start(ValidationRunRegistry.keyOf(projectId, nodeId), runId, this.deps.clock.now(), (signal, setLastLine) =>
      this.run(projectId, nodeId, runId, who, signal, setLastLine),
    );
  }

  /**
   * Records that a caller received run `runId`'s result (best effort: at worst the result is given once more).
   * Returns the graph's revision after it (undefined when the write failed).
   */
  async markDelivered(projectId: string, nodeId: string, runId: string): Promise<number | undefined> {
    try {
      return (await this.change(projectId, nodeId, { type: 'mark_delivered', runId })).revision;
    } catch (e) {
      this.deps.logger.warn('could not record that a validation result was delivered', { project: projectId, node: nodeId, error: String(e) });
      return undefined;
    }
  }

  private async run(projectId: string, nodeId: string, runId: string, who: Claimant, signal: AbortSignal, setLastLine: (l: string) => void): Promise<RunVerdict> {
    const claimed = await this.deps.store.update(projectId, (graph) => this.claim(graph, nodeId, runId, who));
    if (claimed.verdict) return claimed.verdict;
    const node = claimed.node;
    const stopRenewing = this.renewLease(projectId, nodeId, runId);
    let result: CommandResult;
    try {
      result = await this.execute(node, claimed.projectRoot, runId, signal, setLastLine, (pgid) => this.recordGroup(projectId, nodeId, runId, pgid));
    } finally {
      stopRenewing();
    }
    this.deps.logger.debug('validation command ended', {
      project: projectId, node: nodeId, exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, cancelled: result.cancelled,
    });
    if (result.cancelled) {
      await this.change(projectId, nodeId, { type: 'cancel', runId }, who);
      throw new CancelledError(TaskMessages.cancelled(nodeId));
    }
    const passed = result.exitCode === 0;
    const outcome = this.outcome(result);
    try {
      const r = await this.change(projectId, nodeId, passed ? { type: 'pass', runId, run: outcome } : { type: 'fail', runId, run: outcome }, who);
      return { node: r.node, unlocked: r.unlocked, revision: r.revision };
    } catch (e) {
      if (e instanceof ConflictError || !isWorkgraphError(e) || e.code !== 'storage_error') throw e;
      // The verdict is lost to the file but not to the caller: the error carries it, and the node (whose run has
      // ended here) is recoverable at once by this process.
      throw new StorageError(TaskMessages.verdictNotWritten(nodeId, passed, result.exitCode, e.message), {
        ...e.details, node: nodeId, validation_passed: passed, exitCode: result.exitCode, stdout: outcome.stdout_tail, stderr: outcome.stderr_tail,
      }, { cause: e });
    }
  }

  /** First compare-and-swap: the node goes VALIDATING under this process's lease; no command → COMPLETED at once. */
  private claim(graph: TaskGraph, nodeId: string, runId: string, who: Claimant): TaskGraphChange<Claim> {
    const now = this.deps.clock.now();
    const at = timeOf(now);
    const facts = this.hostFacts();
    this.stopOrphanedRun(graph.nodes.find((n) => n.id === nodeId));
    const before = graph.nodes.find((n) => n.id === nodeId);
    if (before) requireClaimant(before, who, now, 'validate_task_loop');
    const started = applyTaskEvent(graph, nodeId, { type: 'begin_validation', runId, lease: newLease(facts, runId, now), facts }, at);
    // The caller holds the claim from here on (renewed: a run is a call of the claimant on the task).
    const claimedGraph = setClaim(started.graph, nodeId, claimFor(who, now, this.claimTtlMs, before?.claim));
    const begun = { ...started, graph: claimedGraph, node: claimedGraph.nodes.find((n) => n.id === nodeId)! };
    if (begun.node.validation_command) {
      return { graph: begun.graph, transitions: stampActor(begun.transitions, transitionActor(who)), value: { node: begun.node, projectRoot: graph.project_root, verdict: undefined } };
    }
    const run: RunOutcome = {
      finished_at: at.iso, command_ran: false, exit_code: null, signal: null, duration_ms: 0, timed_out: false, stdout_tail: '', stderr_tail: '', truncated: false,
    };
    const passed = applyTaskEvent(begun.graph, nodeId, { type: 'pass', runId, run }, at);
    return {
      graph: passed.graph,
      transitions: stampActor([...begun.transitions, ...passed.transitions], transitionActor(who)),
      history: [verdictEntry(at.iso, who, passed.node, true, passed.unlocked)],
      value: { node: passed.node, projectRoot: graph.project_root, verdict: { node: passed.node, unlocked: passed.unlocked, revision: graph.revision + 1 } },
    };
  }

  private async execute(node: TaskNode, cwd: string, runId: string, signal: AbortSignal, onOutput: (l: string) => void, onStarted: (pid: number) => void): Promise<CommandResult> {
    try {
      return await this.deps.runner.run({
        command: node.validation_command!,
        cwd,
        marker: runId,
        onStarted,
        timeoutMs: node.timeout_ms,
        signal,
        onOutput,
        maxOutputBytes: node.output_tail_bytes ?? this.outputTailBytes,
      });
    } catch (e) {
      if (!(e instanceof CommandFailedError)) throw e;
      // A command that cannot even start is a failed attempt (the node must not stay VALIDATING).
      return { exitCode: null, signal: null, durationMs: 0, stdout: '', stderr: e.message, truncated: false, timedOut: false, cancelled: false };
    }
  }

  private outcome(r: CommandResult): RunOutcome {
    return {
      finished_at: new Date(this.deps.clock.now()).toISOString(),
      command_ran: true,
      exit_code: r.exitCode,
      signal: r.signal,
      duration_ms: r.durationMs,
      timed_out: r.timedOut,
      stdout_tail: r.stdout,
      stderr_tail: r.stderr,
      truncated: r.truncated,
    };
  }

  /** Records the command's process group in the lease (best effort: the run id in its environment finds it anyway). */
  private recordGroup(projectId: string, nodeId: string, runId: string, pgid: number): void {
    const expiresAt = new Date(this.deps.clock.now() + LEASE_TTL_MS).toISOString();
    this.change(projectId, nodeId, { type: 'renew_lease', runId, expiresAt, pgid }).catch((e) =>
      this.deps.logger.warn('could not record a validation run\'s process group', { project: projectId, node: nodeId, error: String(e) }),
    );
  }

  /** Renews the lease every {@link LEASE_RENEW_MS} while the command runs; a failed renewal is logged, not fatal. */
  private renewLease(projectId: string, nodeId: string, runId: string): () => void {
    let busy = false;
    return this.deps.timers.every(LEASE_RENEW_MS, () => {
      if (busy) return;
      busy = true;
      const expiresAt = new Date(this.deps.clock.now() + LEASE_TTL_MS).toISOString();
      this.change(projectId, nodeId, { type: 'renew_lease', runId, expiresAt })
        .catch((e) => this.deps.logger.warn('could not renew a validation run lease', { project: projectId, node: nodeId, error: String(e) }))
        .finally(() => (busy = false));
    });
  }

  /**
   * A compare-and-swap applying one event to one node; with `who` (the caller that asked for the run) its status
   * changes carry that actor, and a verdict goes into the history too.
   */
  private change(projectId: string, nodeId: string, event: TaskEvent, who?: Claimant) {
    return this.deps.store.update(projectId, (graph) => {
      const at = timeOf(this.deps.clock.now());
      let r = applyTaskEvent(graph, nodeId, event, at);
      // A failed attempt with attempts left: the claimant's run just ended, so its claim is renewed.
      if (who && event.type === 'fail' && r.node.claim) {
        const renewed = setClaim(r.graph, nodeId, claimFor(who, at.ms, this.claimTtlMs, r.node.claim));
        r = { ...r, graph: renewed, node: renewed.nodes.find((n) => n.id === nodeId)! };
      }
      // An event that changed nothing (a result already marked delivered) writes nothing.
      const wrote = r.graph !== graph;
      const history = who && wrote && (event.type === 'pass' || event.type === 'fail') ? [verdictEntry(at.iso, who, r.node, event.type === 'pass', r.unlocked)] : [];
      const transitions = who ? stampActor(r.transitions, transitionActor(who)) : r.transitions;
      return { graph: wrote ? r.graph : undefined, transitions, history, value: { ...r, revision: wrote ? graph.revision + 1 : graph.revision } };
    });
  }
}

/** The history entry of a validation verdict. */
function verdictEntry(time: string, who: Claimant, node: TaskNode, passed: boolean, unlocked: readonly string[]) {
  const attempt = node.last_run?.attempt ?? node.current_attempt;
  const reason = passed
    ? `'${node.id}' passed validation (attempt ${attempt})${node.validation_command ? '' : ' with no command to run'}; COMPLETED${unlocked.length ? `, unlocked ${unlocked.join(', ')}` : ''}`
    : `'${node.id}' failed validation (attempt ${attempt}/${node.max_attempts}); ${node.status}`;
  return { time, actor: who, action: 'validate_task_loop', reason, nodes: [node.id, ...unlocked] };
}
