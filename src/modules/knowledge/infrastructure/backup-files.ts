import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { copyFileExclusive, writeFileIfAbsent } from '../../../kernel/files/atomic-write';
import { fileExists } from './ndjson-passes';
import { makeDir } from '../../../kernel/files/make-dir';
import { StorageError } from '../../../kernel/errors';
import type { KnowledgeBackupInfo } from '../application/ports/knowledge-store';

/** Backup file names: `knowledge_graph_YYYYMMDD-HHMMSS.ndjson` (UTC), `..._YYYYMMDD-HHMMSS-N.ndjson` when taken. */
export const BACKUP_NAME = /^knowledge_graph_(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-(\d+))?\.ndjson$/;

/**
 * Newest first by a backup's name: its UTC time, then its `-N` (plain name order is not time order: `.` sorts after
 * `-`, so `…-HHMMSS.ndjson` would come before `…-HHMMSS-1.ndjson`, taken after it in the same second).
 */
export function newestBackupFirst(a: string, b: string): number {
  const [ta, sa] = backupTime(a);
  const [tb, sb] = backupTime(b);
  return tb - ta || sb - sa;
}

/** [UTC ms, -N] of a backup name (NaN time for a name that is not one). */
function backupTime(name: string): [number, number] {
  const m = BACKUP_NAME.exec(name);
  if (!m) return [Number.NaN, 0];
  return [Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!), m[7] ? +m[7] : 0];
}

export function backupStamp(epochMs: number): string {
  const d = new Date(epochMs);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/**
 * Copies `source` into `backupDir` under a timestamped name never used before: the copy is made with COPYFILE_EXCL,
 * so two backups in the same second (or two processes) get `-1`, `-2`, ... instead of overwriting each other.
 * A missing source gives an empty backup. Not fsynced: the deleted nodes are also in the fsynced deleted file, and the
 * rebuilt graph is durable on its own; the backup is a convenience copy.
 */
export async function createBackup(source: string, backupDir: string, epochMs: number): Promise<string> {
  await makeDir(backupDir);
  const stamp = backupStamp(epochMs);
  for (let n = 0; ; n++) {
    const target = path.join(backupDir, `knowledge_graph_${stamp}${n === 0 ? '' : `-${n}`}.ndjson`);
    try {
      await copyFileExclusive(source, target);
      return target;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code === 'ENOENT' && !(await fileExists(source))) {
        if (await writeFileIfAbsent(target, '')) return target;
        continue;
      }
      throw e;
    }
  }
}

/**
 * Removes backups older than `maxAgeDays` and, of the rest, all but the newest `maxCount`. `keep` (the backup just
 * made) is never removed. Files not named like backups are left alone. Returns the paths removed.
 */
export async function pruneBackups(
  backupDir: string,
  opts: { nowMs: number; maxAgeDays: number; maxCount: number; keep?: string },
): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(backupDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const backups = names
    .filter((name) => BACKUP_NAME.test(name))
    .sort(newestBackupFirst)
    .map((name) => ({ file: path.join(backupDir, name), time: backupTime(name)[0] }));
  const maxAgeMs = opts.maxAgeDays * 86_400_000;
  const removed: string[] = [];
  let kept = 0;
  for (const b of backups) {
    const isKeep = b.file === opts.keep;
    const tooOld = opts.nowMs - b.time > maxAgeMs;
    if (isKeep || (!tooOld && kept < opts.maxCount)) {
      kept++;
      continue;
    }
    await fs.rm(b.file, { force: true });
    removed.push(b.file);
  }
  return removed;
}

/** A project's backups in `dir` (none when it does not exist), newest first. */
export async function listBackupFiles(project: string, dir: string): Promise<KnowledgeBackupInfo[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => BACKUP_NAME.test(n));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new StorageError(`cannot list ${dir}: ${(e as Error).message}`, { dir }, { cause: e });
  }
  const out: KnowledgeBackupInfo[] = [];
  for (const file of names) {
    const full = path.join(dir, file);
    const st = await statOrUndefined(full);
    if (st) out.push({ id: `${project}/${file}`, file, path: full, sizeBytes: st.size, modifiedAt: st.mtime.toISOString() });
  }
  return out.sort((a, b) => newestBackupFirst(a.file, b.file));
}

/** The file's stats, or undefined when it cannot be stat'ed (gone). */
export async function statOrUndefined(file: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fs.stat(file);
  } catch {
    return undefined;
  }
}
