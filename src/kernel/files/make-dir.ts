import * as fs from 'node:fs';
import * as path from 'node:path';
import { errnoCode, toStorageError } from './storage-errors';

/**
 * `mkdir -p` that always ends. Node's own `mkdir(dir, { recursive: true })` (Node 20) loops forever, burning CPU in
 * system calls, where mkdir answers ENOENT for a folder whose parent exists — any path under Linux's /proc
 * (`--data-dir /proc/nope`): a tool call then never answered. Here each missing folder is created once, from the top,
 * and the first failure (ENOENT, EACCES, EROFS, ENOTDIR…) is thrown as a storage_error naming the folder. A folder
 * created meanwhile by another process is fine.
 */
export async function makeDir(dir: string): Promise<void> {
  try {
    await makeDirRaw(dir);
  } catch (e) {
    throw toStorageError(e, 'create the folder', dir);
  }
}

/** {@link makeDir}, synchronously (for start-up code that cannot wait). */
export function makeDirSync(dir: string): void {
  try {
    makeDirRawSync(dir);
  } catch (e) {
    throw toStorageError(e, 'create the folder', dir);
  }
}

async function makeDirRaw(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = path.resolve(dir); ; ) {
    const kind = await fs.promises.stat(current).then(
      (st) => (st.isDirectory() ? 'dir' : 'other'),
      (e: unknown) => {
        if (errnoCode(e) === 'ENOENT') return 'missing' as const;
        throw e;
      },
    );
    if (kind === 'dir') break;
    if (kind === 'other') throw notAFolder(current);
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of missing.reverse()) {
    try {
      await fs.promises.mkdir(d);
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST') throw e;
      if (!(await fs.promises.stat(d)).isDirectory()) throw notAFolder(d);
    }
  }
}

function makeDirRawSync(dir: string): void {
  const missing: string[] = [];
  for (let current = path.resolve(dir); ; ) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(current);
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') throw e;
    }
    if (st?.isDirectory()) break;
    if (st) throw notAFolder(current);
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      if (errnoCode(e) !== 'EEXIST') throw e;
      if (!fs.statSync(d).isDirectory()) throw notAFolder(d);
    }
  }
}

function notAFolder(p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${p}'`), { code: 'ENOTDIR', path: p, syscall: 'mkdir' });
}
