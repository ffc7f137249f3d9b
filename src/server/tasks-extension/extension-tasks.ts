import { randomUUID } from 'node:crypto';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { Logger } from '../../kernel/logger';
import { JsonRpcErrorCodes } from '../json-rpc-codes';
import { detailedTask, isExpired, isOrphaned, isTerminal, taskFields, type ExtensionTaskRecord } from './extension-task';
import type { ExtensionTaskStore } from './extension-task-store';

export interface ExtensionTaskTimings {
  /** What a task suggests as polling interval, and how often its runner checks for a cancellation. Default 1,000 ms. */
  pollIntervalMs?: number;
  /** A task's time to live from creation. Default 24 h. */
  ttlMs?: number;
  /** How often a running task's record is rewritten when nothing else changed (its heartbeat). Default 5,000 ms. */
  heartbeatMs?: number;
  /** A `working` task whose heartbeat is older than this ran on an instance that died: answered `failed`. Default 30,000 ms. */
  staleMs?: number;
}

/** What runs as a task: the tool call itself, given the task's cancellation signal and progress sink. */
export interface TaskRun {
  tool: string;
  /** The identity creating the task: only it may see the task afterwards. */
  owner: string;
  run(signal: AbortSignal, progress: (message: string) => void): Promise<Record<string, unknown>>;
  /** Held while the task runs (the shutdown coordinator waits for it, and its signal aborts the run). */
  track?: { begin(): () => void; signal: AbortSignal };
}

/**
 * The tasks extension's server side (the SDK's v2 carries the types but none of it): a long-running tool call made
 * into a task whose state lives in the store, so `tasks/get`, `tasks/update` and `tasks/cancel` are answered by
 * whichever instance gets them. The instance that created a task runs it: its progress becomes the task's
 * `statusMessage`, its result the task's `result`; it checks the store for a cancellation every poll interval (one
 * asked through another instance reaches it that way) and rewrites the record as a heartbeat, so a task whose
 * instance died is answered `failed` instead of `working` forever.
 */
export class ExtensionTasks {
  private readonly pollIntervalMs: number;
  private readonly ttlMs: number;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;
  /** The tasks this instance runs: a cancellation asked here aborts at once. */
  private readonly running = new Map<string, AbortController>();
  /** When expired tasks were last purged (ms): at most every 10 minutes, on a task's creation. */
  private purgedAt = 0;

  constructor(
    private readonly store: () => ExtensionTaskStore,
    private readonly logger: Logger,
    timings: ExtensionTaskTimings = {},
    private readonly now: () => number = Date.now,
  ) {
    this.pollIntervalMs = timings.pollIntervalMs ?? 1_000;
    this.ttlMs = timings.ttlMs ?? 24 * 3_600_000;
    this.heartbeatMs = timings.heartbeatMs ?? 5_000;
    this.staleMs = timings.staleMs ?? 30_000;
  }

  /** Creates the task durably, starts its run, and answers the CreateTaskResult (`resultType: "task"`). */
  async start(spec: TaskRun): Promise<Record<string, unknown>> {
    const at = new Date(this.now()).toISOString();
    const record: ExtensionTaskRecord = {
      taskId: randomUUID(),
      owner: spec.owner,
      tool: spec.tool,
      status: 'working',
      statusMessage: `${spec.tool} is running`,
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      heartbeatAt: at,
    };
    await this.store().create(record);
    void this.run(record, spec);
    if (this.now() - this.purgedAt >= 600_000) {
      this.purgedAt = this.now();
      void this.store()
        .purgeExpired(this.now())
        .catch((e) => this.logger.warn('cannot purge expired tasks', { err: (e as Error).message }));
    }
    return { resultType: 'task', ...taskFields(record) };
  }

  /** `tasks/get`: the task as it stands. @throws ProtocolError -32602 for an unknown, foreign or expired task. */
  async get(taskId: unknown, caller: string): Promise<Record<string, unknown>> {
    return detailedTask(await this.find(taskId, caller, 'retrieve'));
  }

  /** `tasks/cancel`: asks the task's runner to stop (eventually `cancelled`, or the result if it finished first). */
  async cancel(taskId: unknown, caller: string): Promise<Record<string, never>> {
    const record = await this.find(taskId, caller, 'cancel');
    if (!isTerminal(record.status)) {
      await this.store().requestCancel(record.taskId);
      this.running.get(record.taskId)?.abort();
    }
    return {};
  }

  /** `tasks/update`: these tasks never wait for input, so every response names no outstanding request and is ignored. */
  async update(taskId: unknown, caller: string): Promise<Record<string, never>> {
    await this.find(taskId, caller, 'update');
    return {};
  }

  private async find(taskId: unknown, caller: string, verb: string): Promise<ExtensionTaskRecord> {
    if (typeof taskId !== 'string' || taskId === '') throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `Failed to ${verb} task: params.taskId must be a non-empty string`);
    const record = await this.store().get(taskId);
    // Another identity's task is not found, exactly like one that never existed: its existence is not told.
    if (!record || record.owner !== caller) throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `Failed to ${verb} task: Task not found (${taskId})`);
    const now = this.now();
    if (isExpired(record, now)) {
      await this.store().remove(taskId).catch(() => undefined);
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `Failed to ${verb} task: Task has expired (${taskId})`);
    }
    if (!this.running.has(taskId) && isOrphaned(record, now, this.staleMs)) {
      const failed = this.finished(record, {
        status: 'failed',
        statusMessage: `the server instance running ${record.tool} stopped before it finished; call the tool again`,
        error: { code: JsonRpcErrorCodes.InternalError, message: `the server instance running ${record.tool} stopped before it finished` },
      });
      if (await this.store().put(failed)) return failed;
      return (await this.store().get(taskId)) ?? failed;
    }
    return record;
  }

  private async run(initial: ExtensionTaskRecord, spec: TaskRun): Promise<void> {
    const id = initial.taskId;
    const controller = new AbortController();
    this.running.set(id, controller);
    const done = spec.track?.begin();
    const onShutdown = () => controller.abort();
    if (spec.track?.signal.aborted) controller.abort();
    else spec.track?.signal.addEventListener('abort', onShutdown, { once: true });
    let record = initial;
    let message: string | undefined;
    let lastWrite = this.now();
    // Writes go one after the other: a tick's write never lands after the final one.
    let writes: Promise<unknown> = Promise.resolve();
    const write = (next: ExtensionTaskRecord) => (writes = writes.then(() => this.store().put(next)).catch((e) => this.logger.warn('cannot write a task', { taskId: id, err: (e as Error).message })));
    const tick = setInterval(() => {
      void (async () => {
        if (!controller.signal.aborted && (await this.store().isCancelRequested(id).catch(() => false))) controller.abort();
        const now = this.now();
        if ((message !== undefined && message !== record.statusMessage) || now - lastWrite >= this.heartbeatMs) {
          const at = new Date(now).toISOString();
          record = { ...record, ...(message !== undefined ? { statusMessage: message } : {}), lastUpdatedAt: at, heartbeatAt: at };
          lastWrite = now;
          void write(record);
        }
      })();
    }, this.pollIntervalMs);
    tick.unref();
    let final: ExtensionTaskRecord;
    try {
      const result = await spec.run(controller.signal, (m) => (message = m));
      final = controller.signal.aborted && !spec.track?.signal.aborted
        ? this.finished(record, { status: 'cancelled', statusMessage: `${record.tool} was cancelled` })
        : spec.track?.signal.aborted
          ? this.finished(record, { status: 'failed', statusMessage: 'the server shut down before the task finished', error: { code: JsonRpcErrorCodes.InternalError, message: 'the server shut down before the task finished' } })
          : this.finished(record, { status: 'completed', statusMessage: result.isError === true ? `${record.tool} answered an error` : `${record.tool} finished`, result });
    } catch (e) {
      const error = e instanceof ProtocolError ? { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } : { code: JsonRpcErrorCodes.InternalError, message: (e as Error).message };
      final = this.finished(record, { status: 'failed', statusMessage: error.message, error });
    } finally {
      clearInterval(tick);
      spec.track?.signal.removeEventListener('abort', onShutdown);
    }
    await writes;
    await write(final);
    await writes;
    this.running.delete(id);
    done?.();
  }

  private finished(record: ExtensionTaskRecord, patch: Partial<ExtensionTaskRecord>): ExtensionTaskRecord {
    const at = new Date(this.now()).toISOString();
    return { ...record, ...patch, lastUpdatedAt: at, heartbeatAt: at };
  }
}
