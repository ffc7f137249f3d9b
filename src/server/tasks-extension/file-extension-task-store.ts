import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { StorageError } from '../../kernel/errors';
import { makeDir } from '../../kernel/files/make-dir';
import { writeFileAtomic, writeFileIfAbsent } from '../../kernel/files/atomic-write';
import { isExpired, isTerminal, type ExtensionTaskRecord } from './extension-task';
import type { ExtensionTaskStore } from './extension-task-store';

/** Bytes of the requestState signing key. */
const KEY_BYTES = 32;
/** A task id as this server makes them (a UUID): anything else names no task (and never a path). */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The tasks extension's tasks in the data dir: `protocol/tasks/<taskId>.json` (the record, written atomically by the
 * instance running the task), `protocol/tasks/<taskId>.cancel` (a cancellation asked through any instance), and the
 * requestState signing key `protocol/request-state.key` (mode 0600, made once: two processes racing agree on one).
 */
export class FileExtensionTaskStore implements ExtensionTaskStore {
  private readonly dir: string;
  private readonly keyFile: string;
  private key?: Promise<Buffer>;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'protocol', 'tasks');
    this.keyFile = path.join(dataDir, 'protocol', 'request-state.key');
  }

  async create(record: ExtensionTaskRecord): Promise<void> {
    await makeDir(this.dir);
    if (!(await writeFileIfAbsent(this.file(record.taskId, 'json'), JSON.stringify(record)))) {
      throw new StorageError(`task ${record.taskId} exists already`, { taskId: record.taskId });
    }
  }

  async get(taskId: string): Promise<ExtensionTaskRecord | undefined> {
    if (!TASK_ID.test(taskId)) return undefined;
    const text = await readOrUndefined(this.file(taskId, 'json'));
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as ExtensionTaskRecord;
    } catch (e) {
      throw new StorageError(`task file ${this.file(taskId, 'json')} is not JSON: ${(e as Error).message}`, { taskId });
    }
  }

  async put(record: ExtensionTaskRecord): Promise<boolean> {
    const stored = await this.get(record.taskId);
    if (!stored || isTerminal(stored.status)) return false;
    await writeFileAtomic(this.file(record.taskId, 'json'), JSON.stringify(record));
    return true;
  }

  async requestCancel(taskId: string): Promise<void> {
    if (!TASK_ID.test(taskId)) return;
    await writeFileIfAbsent(this.file(taskId, 'cancel'), new Date().toISOString());
  }

  async isCancelRequested(taskId: string): Promise<boolean> {
    return TASK_ID.test(taskId) && (await readOrUndefined(this.file(taskId, 'cancel'))) !== undefined;
  }

  async remove(taskId: string): Promise<void> {
    if (!TASK_ID.test(taskId)) return;
    await fs.rm(this.file(taskId, 'json'), { force: true });
    await fs.rm(this.file(taskId, 'cancel'), { force: true });
  }

  async purgeExpired(now: number): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw new StorageError(`cannot list ${this.dir}: ${(e as Error).message}`, { dir: this.dir });
    }
    let purged = 0;
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const record = await this.get(name.slice(0, -5)).catch(() => undefined);
      if (record && isExpired(record, now)) {
        await this.remove(record.taskId);
        purged++;
      }
    }
    return purged;
  }

  signingKey(): Promise<Buffer> {
    return (this.key ??= this.loadOrCreateKey().catch((e) => {
      this.key = undefined;
      throw e;
    }));
  }

  private async loadOrCreateKey(): Promise<Buffer> {
    const existing = await readKey(this.keyFile);
    if (existing) return existing;
    await makeDir(path.dirname(this.keyFile));
    await writeFileIfAbsent(this.keyFile, randomBytes(KEY_BYTES), { mode: 0o600 });
    const key = await readKey(this.keyFile);
    if (!key) throw new StorageError(`cannot read the requestState key ${this.keyFile}`, { file: this.keyFile });
    return key;
  }

  private file(taskId: string, ext: 'json' | 'cancel'): string {
    return path.join(this.dir, `${taskId}.${ext}`);
  }
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageError(`cannot read ${file}: ${(e as Error).message}`, { file });
  }
}

/** The key, or undefined when there is none yet; a key shorter than KEY_BYTES is refused (state signed with it could be forged). */
async function readKey(file: string): Promise<Buffer | undefined> {
  let key: Buffer;
  try {
    key = await fs.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageError(`cannot read the requestState key ${file}: ${(e as Error).message}`, { file });
  }
  if (key.length < KEY_BYTES) {
    throw new StorageError(`the requestState key ${file} holds ${key.length} bytes, not a key of ${KEY_BYTES}; delete it to make a new one`, { file });
  }
  return key;
}
