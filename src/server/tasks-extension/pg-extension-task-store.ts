import { randomBytes } from 'node:crypto';
import type { PgDatabase } from '../../kernel/postgres/pg-database';
import type { ExtensionTaskRecord } from './extension-task';
import type { ExtensionTaskStore } from './extension-task-store';

const TERMINAL = ['completed', 'cancelled', 'failed'];

/** {@link ExtensionTaskStore} in PostgreSQL: every instance of one database answers for every task. */
export class PgExtensionTaskStore implements ExtensionTaskStore {
  private key?: Promise<Buffer>;

  constructor(private readonly db: PgDatabase) {}

  async create(r: ExtensionTaskRecord): Promise<void> {
    await this.db.query('INSERT INTO wg_extension_tasks (task_id, owner, terminal, expires_at, record) VALUES ($1, $2, $3, $4, $5)', [
      r.taskId,
      r.owner,
      TERMINAL.includes(r.status),
      new Date(Date.parse(r.createdAt) + r.ttlMs).toISOString(),
      JSON.stringify(r),
    ]);
  }

  async get(taskId: string): Promise<ExtensionTaskRecord | undefined> {
    const [row] = await this.db.query<{ record: ExtensionTaskRecord }>('SELECT record FROM wg_extension_tasks WHERE task_id = $1', [taskId]);
    return row?.record;
  }

  async put(r: ExtensionTaskRecord): Promise<boolean> {
    const rows = await this.db.query('UPDATE wg_extension_tasks SET record = $2, terminal = $3 WHERE task_id = $1 AND NOT terminal RETURNING task_id', [
      r.taskId,
      JSON.stringify(r),
      TERMINAL.includes(r.status),
    ]);
    return rows.length > 0;
  }

  async requestCancel(taskId: string): Promise<void> {
    await this.db.query('UPDATE wg_extension_tasks SET cancel_requested = true WHERE task_id = $1', [taskId]);
  }

  async isCancelRequested(taskId: string): Promise<boolean> {
    const [row] = await this.db.query<{ cancel_requested: boolean }>('SELECT cancel_requested FROM wg_extension_tasks WHERE task_id = $1', [taskId]);
    return row?.cancel_requested === true;
  }

  async remove(taskId: string): Promise<void> {
    await this.db.query('DELETE FROM wg_extension_tasks WHERE task_id = $1', [taskId]);
  }

  async purgeExpired(now: number): Promise<number> {
    const rows = await this.db.query('DELETE FROM wg_extension_tasks WHERE expires_at < $1 RETURNING task_id', [new Date(now).toISOString()]);
    return rows.length;
  }

  signingKey(): Promise<Buffer> {
    return (this.key ??= (async () => {
      await this.db.query("INSERT INTO wg_protocol_keys (name, value) VALUES ('request_state_key', $1) ON CONFLICT (name) DO NOTHING", [randomBytes(32).toString('base64')]);
      const [row] = await this.db.query<{ value: string }>("SELECT value FROM wg_protocol_keys WHERE name = 'request_state_key'");
      return Buffer.from(row!.value, 'base64');
    })().catch((e) => {
      this.key = undefined;
      throw e;
    }));
  }
}
