import type { GraphRunRecord } from '../../domain/graph-run-record';
import type { GraphRunStore } from '../ports/graph-run-store';
import type { ExecutionState } from './execution-types';

/** How often a running run's live record is saved by default (`liveEveryMs`). */
export const DEFAULT_LIVE_RECORD_MS = 250;
/**
 * The live record's work on the event loop (building it, serializing it) is kept under a tenth of the time between
 * two of them: after a save that took `t` ms of the loop, the next waits at least 10 × t.
 */
const LIVE_WORK_SHARE = 10;
/** Node executions a live record holds (the newest; the run page's timeline shows 500). */
export const LIVE_RECORDED_EXECUTIONS = 1_000;

export interface RunRecorderOptions {
  store: GraphRunStore;
  /** The run's state now. */
  state: () => ExecutionState;
  /** Its record from a state (buildRunRecord with the run's input and source); `live` for a run still going. */
  build: (state: ExecutionState, live: boolean) => GraphRunRecord;
  /** Settles when the run ended. */
  ended: Promise<unknown>;
  /** Live record every this many ms while the run goes on; 0 = only the final record. */
  liveEveryMs: number;
  onError: (err: unknown) => void;
}

/**
 * What a live record is made of while the run goes on: its status, its current node and its executions (the history
 * only grows, so their count names them; a live record's times are its executions' times). Two states with the same
 * key give the same live record.
 */
function liveRecordKey(state: ExecutionState): string {
  return `${state.status}\u0000${state.executionCount}\u0000${state.currentNodeId ?? ''}`;
}

/**
 * Records one run in the run store: while it goes on, its live record (status `running`/`paused`, the current node)
 * every `liveEveryMs` when it changed since the last save — so a dashboard in any process draws it as it happens,
 * through the store's change events — and its final record once it ended; a run whose record did not change (one
 * long node, a pause in the debugger) is not saved again until it does. A live
 * save's work on the event loop stays under a tenth of the time between two (a long record is saved less often). Saves never overlap and the final one is the last: a live save still in flight is
 * waited for, and none starts after the run ended. All of it runs on timers off the engine's loop, which never waits.
 * @returns settles once the final record was saved (or its save failed: `onError` was told).
 */
export function recordRun(o: RunRecorderOptions): Promise<void> {
  let ended = false;
  let saving: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let loopMs = 0;
  const save = (rec: () => GraphRunRecord, saved?: () => void): Promise<void> =>
    (saving = saving
      .then(async () => {
        const t0 = Date.now();
        // Building the record and the store's serializing of it (before its first await) hold the event loop.
        const written = o.store.save(rec());
        loopMs = Date.now() - t0;
        await written;
        saved?.();
      })
      .catch((err) => o.onError(err)));
  // The live state last saved: a run whose record did not change since — one long node (an MCP call of minutes),
  // a run held in the debugger — is not saved again on every tick. A save that failed is tried again.
  let lastSaved: string | undefined;
  const tick = (): void => {
    timer = undefined;
    if (ended) return;
    const state = o.state();
    const key = liveRecordKey(state);
    if (key === lastSaved) return schedule();
    void save(() => o.build(state, true), () => (lastSaved = key)).then(schedule);
  };
  function schedule(): void {
    if (ended || o.liveEveryMs <= 0) return;
    timer = setTimeout(tick, Math.max(o.liveEveryMs, LIVE_WORK_SHARE * loopMs));
    timer.unref?.();
  }
  schedule();
  let recorded!: () => void;
  const final = new Promise<void>((resolve) => (recorded = resolve));
  const finish = (): void => {
    ended = true;
    if (timer) clearTimeout(timer);
    setImmediate(() => void save(() => o.build(o.state(), false)).then(recorded));
  };
  o.ended.then(finish, finish);
  return final;
}
