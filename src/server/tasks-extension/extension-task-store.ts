import type { ExtensionTaskRecord } from './extension-task';

/**
 * Where the tasks extension keeps its tasks, so that any instance of one store answers for a task another started
 * (files: the data dir; PostgreSQL: one table). The instance running a task is its only writer of the record; a
 * cancellation is written apart from it (a flag), so the two never overwrite each other.
 */
export interface ExtensionTaskStore {
  /** Writes a new task durably (a `tasks/get` on any instance finds it once this resolves). */
  create(record: ExtensionTaskRecord): Promise<void>;
  get(taskId: string): Promise<ExtensionTaskRecord | undefined>;
  /** Replaces the task's record, unless the stored one is already terminal (then false: nothing written). */
  put(record: ExtensionTaskRecord): Promise<boolean>;
  /** Asks the task's runner (on whatever instance) to cancel it. */
  requestCancel(taskId: string): Promise<void>;
  isCancelRequested(taskId: string): Promise<boolean>;
  /** Forgets the task (past its TTL). */
  remove(taskId: string): Promise<void>;
  /** Forgets every task whose TTL ended before `now` (ms); returns how many. */
  purgeExpired(now: number): Promise<number>;
  /** The key that signs this server's `requestState`s: the same for every instance of the store, made on first use. */
  signingKey(): Promise<Buffer>;
}
