import { InvalidArgumentsError, InvalidTransitionError, NotFoundError } from '../../../../kernel/errors';
import type { Actor } from '../../../../kernel/identity';
import type { Logger } from '../../../../kernel/logger';
import type { Reach } from '../../../../kernel/reach';
import type { ExecutionController, ExecutionStatus } from '../engine/execution-types';
import { viewOf, type DebugRunView } from './debug-run-view';
import type { GraphToolCatalog } from '../ports/graph-tool-catalog';

/** A paused debug run nobody touched for this long is stopped (and the stop logged). Default 15 minutes. */
export const DEFAULT_DEBUG_IDLE_MS = 15 * 60_000;
/** Ended debug runs remembered (their outcome, not their history) so a late step is told the run ended. */
const ENDED_KEPT = 20;
/**
 * How long a start with breakpoints (or startPaused) or a pause waits for the run to hold (or end) before answering
 * with what it is doing.
 */
const SETTLE_MS = 1_000;
/** How long a step waits for its node (an `mcp` node may take longer: the answer then says `running`). */
const STEP_MS = 10_000;

export type DebugAction = 'pause' | 'resume' | 'step' | 'stop';
export type { DebugExecution, DebugRunView } from './debug-run-view';

interface LiveDebugRun {
  runId: string;
  tool: string;
  actor: Actor;
  controller: ExecutionController;
  nodeIds: ReadonlySet<string>;
  ended: Promise<unknown>;
  idleTimer?: ReturnType<typeof setTimeout>;
  idleStopAt?: number;
  /** Settled when the run pauses next (or ends). */
  held: Promise<void>;
  releaseHeld: () => void;
}

export interface StartDebugRun {
  tool: string;
  args: unknown;
  breakpoints?: string[];
  /** Hold before the entry node. */
  startPaused?: boolean;
  actor: Actor;
}

export interface GraphDebugRunsOptions {
  /** See {@link DEFAULT_DEBUG_IDLE_MS}. */
  idleMs?: number;
  logger?: Logger;
  now?: () => number;
}

/**
 * The debug runs started from this process's dashboard: served graph tools run by the one engine
 * (GraphHost.executeTool) with breakpoints and `startPaused`, driven through the run's own controller (pause, step,
 * resume, stop, breakpoints — RunGate under it) and recorded like every run. A run is held by the process that started
 * it; only its starter (or admin) sees and drives it. A run paused and left alone for `idleMs` is stopped and the stop
 * logged, so a forgotten debug run never lives on; while it runs, the graph's own limits bound it (time paused is not
 * counted against maxExecutionTimeMs).
 */
export class GraphDebugRuns {
  private readonly live = new Map<string, LiveDebugRun>();
  private readonly ended = new Map<string, DebugRunView>();
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(private readonly catalog: GraphToolCatalog, private readonly options: GraphDebugRunsOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_DEBUG_IDLE_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts a debug run of a served tool.
   * @throws NotFoundError for a tool not served; InvalidArgumentsError for a breakpoint on no node of the tool.
   */
  async start(input: StartDebugRun): Promise<DebugRunView> {
    const definition = this.catalog.toolDefinition(input.tool);
    if (!definition) throw new NotFoundError('graph tool', input.tool);
    const nodeIds = new Set(definition.tool.nodes.map((n) => n.id));
    const breakpoints = checkNodes(input.breakpoints ?? [], nodeIds, input.tool, 'breakpoints');
    let entry!: LiveDebugRun;
    const handle = this.catalog.executeTool(input.tool, input.args, {
      breakpoints,
      startPaused: input.startPaused === true,
      actor: input.actor,
      hooks: {
        onPause: () => {
          this.armIdle(entry);
          entry.releaseHeld();
        },
        onResume: () => this.disarmIdle(entry),
      },
    });
    entry = { runId: handle.executionId, tool: input.tool, actor: input.actor, controller: handle.controller, nodeIds, ended: handle.promise.then(noop, noop), held: Promise.resolve(), releaseHeld: noop };
    this.expectHold(entry);
    this.live.set(entry.runId, entry);
    void entry.ended.then(() => this.retire(entry));
    // With somewhere to hold, the answer waits for it (briefly): the page shows the run paused at once.
    if (breakpoints.length > 0 || input.startPaused === true) await this.settle(entry, entry.held, SETTLE_MS);
    // Else once it began (the engine starts a run on a later tick): answered `running`, not `not_started`.
    else await this.settle(entry, entry.held, 0);
    return this.view(entry.runId);
  }

  /** @throws NotFoundError for a run this process does not hold (or another identity's). */
  get(runId: string, reach: Reach): DebugRunView {
    this.visible(runId, reach);
    return this.view(runId);
  }

  /**
   * Drives a run: pause (answers once it holds, or after a second), resume, step (answers once the one node ran), stop.
   * @throws NotFoundError; InvalidTransitionError when the run's status does not allow the action (a step on a run that
   *   is not paused, anything but reading on an ended run).
   */
  async control(runId: string, action: DebugAction, reach: Reach): Promise<DebugRunView> {
    const entry = this.driven(runId, action, reach);
    const c = entry.controller;
    const status = c.getState().status;
    switch (action) {
      case 'pause':
        if (status !== 'running' && status !== 'not_started') throw transition(entry, status, action);
        c.pause();
        await this.settle(entry, entry.held, SETTLE_MS);
        break;
      case 'resume':
        if (status !== 'paused') throw transition(entry, status, action);
        this.expectHold(entry);
        c.resume();
        break;
      case 'step': {
        if (status !== 'paused') throw transition(entry, status, action);
        this.expectHold(entry);
        await this.settle(entry, c.step(), STEP_MS);
        break;
      }
      case 'stop':
        c.stop();
        await this.settle(entry, entry.ended, SETTLE_MS);
        this.options.logger?.info('debug run stopped', { runId, tool: entry.tool, by: reach.identity.name });
        break;
    }
    return this.view(runId);
  }

  /** Replaces the run's breakpoints (an empty list clears them). @throws NotFoundError; InvalidArgumentsError; InvalidTransitionError once ended. */
  setBreakpoints(runId: string, nodeIds: string[], reach: Reach): DebugRunView {
    const entry = this.driven(runId, 'set breakpoints', reach);
    entry.controller.setBreakpoints(checkNodes(nodeIds, entry.nodeIds, entry.tool, 'nodeIds'));
    // Driving a paused run counts as attention: its idle timeout starts again.
    if (entry.controller.getState().status === 'paused') this.armIdle(entry);
    return this.view(runId);
  }

  // ---- internals ----

  private visible(runId: string, reach: Reach): void {
    const actor = this.live.get(runId)?.actor ?? this.ended.get(runId)?.actor;
    if (!actor || !reach.owns(actor.name)) throw notHeld(runId);
  }

  /** The live run an action drives. @throws NotFoundError; InvalidTransitionError for an ended run. */
  private driven(runId: string, action: string, reach: Reach): LiveDebugRun {
    this.visible(runId, reach);
    const entry = this.live.get(runId);
    if (!entry) {
      const done = this.ended.get(runId)!;
      throw new InvalidTransitionError(`debug run '${runId}'`, done.status, action, []);
    }
    return entry;
  }

  private view(runId: string): DebugRunView {
    const entry = this.live.get(runId);
    if (!entry) return this.ended.get(runId)!;
    return viewOf(entry.controller.getState(), entry.actor, entry.idleStopAt);
  }

  /** From now on `entry.held` settles at the run's next pause (or its end). */
  private expectHold(entry: LiveDebugRun): void {
    let release!: () => void;
    entry.held = new Promise<void>((resolve) => (release = resolve));
    entry.releaseHeld = release;
  }

  /** Waits for `what`, the run's end, or `ms`, whichever comes first. */
  private async settle(entry: LiveDebugRun, what: Promise<unknown>, ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([what.then(noop, noop), entry.ended, bound]);
    clearTimeout(timer);
  }

  private armIdle(entry: LiveDebugRun): void {
    this.disarmIdle(entry);
    entry.idleStopAt = this.now() + this.idleMs;
    entry.idleTimer = setTimeout(() => {
      this.options.logger?.warn('debug run stopped: paused and idle', { runId: entry.runId, tool: entry.tool, idleMs: this.idleMs, node: entry.controller.getState().currentNodeId });
      entry.controller.stop();
    }, this.idleMs);
    entry.idleTimer.unref?.();
  }

  private disarmIdle(entry: LiveDebugRun): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    entry.idleStopAt = undefined;
  }

  /** An ended run keeps its outcome (not its history: the run record has that) among the last few. */
  private retire(entry: LiveDebugRun): void {
    this.disarmIdle(entry);
    entry.releaseHeld();
    const state = entry.controller.getState();
    const final = viewOf(state, entry.actor, undefined);
    this.live.delete(entry.runId);
    this.ended.set(entry.runId, { ...final, context: {}, history: [] });
    while (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }
}

function noop(): void {}

function checkNodes(ids: readonly string[], nodes: ReadonlySet<string>, tool: string, field: string): string[] {
  const unknown = ids.find((id) => !nodes.has(id));
  if (unknown !== undefined) throw new InvalidArgumentsError(`${field}: tool '${tool}' has no node '${unknown}' (its nodes: ${[...nodes].join(', ')})`, field);
  return [...new Set(ids)];
}

function transition(entry: LiveDebugRun, status: ExecutionStatus, action: DebugAction): InvalidTransitionError {
  const allowed = status === 'paused' ? ['resume', 'step', 'stop'] : status === 'running' || status === 'not_started' ? ['pause', 'stop'] : [];
  return new InvalidTransitionError(`debug run '${entry.runId}'`, status, action, allowed);
}

function notHeld(runId: string): NotFoundError {
  return new NotFoundError(
    'debug run',
    runId,
    `debug run '${runId}' not found on this server: a debug run is driven on the server instance whose dashboard started it (an agent's run is only watched)`,
  );
}
