import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AlreadyExistsError, StorageError, UnsafePathError, isWorkgraphError } from '../../../kernel/errors';
import type { ScaffoldFile, ScaffoldFileWriter } from '../application/ports/scaffold-file-writer';
import { isInside, realpathOfNearestExisting, resolveInside } from '../../../kernel/files/safe-name';
import { assertSize, writeFully } from '../../../kernel/files/write-fully';

/** Test seams: called between the steps of a write, where a racing process could swap a folder for a symlink. */
export interface ScaffoldWriterHooks {
  /** Before the temporary file of `target` is created (after every check). */
  beforeStage?(target: string): Promise<void> | void;
  /** Before the staged file is put in place at `target`. */
  beforeCommit?(target: string): Promise<void> | void;
  /** After a folder on a file's path was created (its real path), before its own subfolders are. */
  afterMkdir?(dir: string): Promise<void> | void;
}

/** What one call changed, so a failure can undo it. */
interface Undo {
  dirs: string[];
  temps: string[];
  created: string[];
  /** Replaced files: the backup (a hard link to the old content) and where it goes back. */
  backups: Array<{ backup: string; target: string }>;
}

/**
 * Writes scaffolded docs all or nothing, and so that a folder swapped for a symlink between check and write cannot
 * make it write outside the target directory:
 * 1. check every name (inside the folder lexically and after symlinks; no duplicate; not existing unless overwrite);
 * 2. stage: create the folders, then write each file to a temporary file in its folder — the folder's real path
 *    re-checked right before, the file opened with O_CREAT|O_EXCL|O_NOFOLLOW (never through a link) and fsynced;
 * 3. commit: re-check each folder again, then put each file in place — a hard link for a new file (fails if anything
 *    appeared there meanwhile), a rename for an overwrite (the old content kept as a hard-linked backup until the end);
 * on any failure everything this call created is removed and replaced files are restored.
 */
export class FsScaffoldFileWriter implements ScaffoldFileWriter {
  constructor(private readonly hooks: ScaffoldWriterHooks = {}) {}

  async writeAll(targetDirectory: string, files: readonly ScaffoldFile[], opts: { overwrite: boolean }): Promise<string[]> {
    const targets = await this.check(targetDirectory, files, opts);
    const undo: Undo = { dirs: [], temps: [], created: [], backups: [] };
    // The folder's real path as checked: every file's folder must stay inside it.
    const realFolder = await realpathOfNearestExisting(targetDirectory);
    try {
      const staged: string[] = [];
      for (let i = 0; i < files.length; i++) {
        await this.mkdirs(realFolder, path.dirname(targets[i]!), files[i]!, undo);
        await this.hooks.beforeStage?.(targets[i]!);
        staged.push(await stage(realFolder, targets[i]!, files[i]!, undo));
      }
      for (let i = 0; i < files.length; i++) {
        await this.hooks.beforeCommit?.(targets[i]!);
        await commit(realFolder, staged[i]!, targets[i]!, files[i]!, opts.overwrite, undo);
      }
      for (const { backup } of undo.backups) await fs.unlink(backup).catch(() => undefined);
      return targets;
    } catch (e) {
      await rollback(undo);
      if (isWorkgraphError(e)) throw e;
      const err = e as NodeJS.ErrnoException;
      throw new StorageError(`cannot write the scaffold in ${targetDirectory}: ${err.code ?? ''} ${err.message}; nothing was written`.trim(), {
        path: targetDirectory,
      });
    }
  }

  private async check(targetDirectory: string, files: readonly ScaffoldFile[], opts: { overwrite: boolean }): Promise<string[]> {
    const targets: string[] = [];
    const seen = new Map<string, string>();
    // The folder may not exist yet (it is created on write); its nearest existing ancestor anchors the symlink check.
    const realFolder = await realpathOfNearestExisting(targetDirectory);
    for (const f of files) {
      const full = resolveInside(targetDirectory, f.relativePath, f.field);
      if (!isInside(realFolder, await realpathOfNearestExisting(full))) {
        throw new UnsafePathError(f.relativePath, 'a symlink leads outside the target directory', f.field);
      }
      const other = seen.get(full);
      if (other) throw new UnsafePathError(f.relativePath, `names the same file as ${other}`, f.field);
      seen.set(full, f.field);
      if (!opts.overwrite && (await exists(full))) {
        throw new AlreadyExistsError('file', full, 'pass overwrite: true to replace it');
      }
      targets.push(full);
    }
    return targets;
  }

  /**
   * Creates `dir` and its missing parents one by one, remembering each it created, so that a parent swapped for a link
   * meanwhile cannot make a folder appear outside: each folder is created relative to its parent's open descriptor
   * (Linux's /proc/self/fd/N/name acts as mkdirat: the name is looked up in the folder the descriptor holds, whatever
   * its path leads to now) and opened with O_NOFOLLOW before its own children are made. Where /proc is missing, each
   * new folder's real path is re-checked instead and one that landed outside is removed.
   */
  private async mkdirs(realFolder: string, dir: string, file: ScaffoldFile, undo: Undo): Promise<void> {
    const missing: string[] = [];
    let current = dir;
    while (!(await exists(current))) {
      missing.unshift(path.basename(current));
      const parent = path.dirname(current);
      if (parent === current) break;
      current = parent;
    }
    if (missing.length === 0) return;
    const outside = () => new UnsafePathError(file.relativePath, 'a folder on its path was replaced by a link leading outside the target directory', file.field);
    let parent = await fs.open(current, fsc.O_RDONLY | fsc.O_DIRECTORY);
    try {
      const held = await openedPath(parent.fd);
      if (held === undefined) return await this.mkdirsByPath(realFolder, current, missing, outside, undo);
      if (!onPathTo(realFolder, held)) throw outside();
      for (const name of missing) {
        const at = `/proc/self/fd/${parent.fd}/${name}`;
        const created = await mkdirOnce(at);
        let child: fs.FileHandle;
        try {
          child = await fs.open(at, fsc.O_RDONLY | fsc.O_DIRECTORY | fsc.O_NOFOLLOW);
        } catch (e) {
          // A link (ELOOP) or a file (ENOTDIR) took the new folder's name.
          if (['ELOOP', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) throw outside();
          throw e;
        }
        await parent.close();
        parent = child;
        const real = await openedPath(parent.fd);
        if (real === undefined || !onPathTo(realFolder, real)) throw outside();
        if (created) undo.dirs.push(real);
        await this.hooks.afterMkdir?.(real);
      }
    } finally {
      await parent.close();
    }
  }

  /** {@link mkdirs} without /proc: create by path, then make sure each new folder really is inside. */
  private async mkdirsByPath(realFolder: string, base: string, missing: readonly string[], outside: () => Error, undo: Undo): Promise<void> {
    let current = base;
    for (const name of missing) {
      current = path.join(current, name);
      const created = await mkdirOnce(current);
      const real = await fs.realpath(current);
      if (!onPathTo(realFolder, real)) {
        if (created) await fs.rmdir(real).catch(() => undefined);
        throw outside();
      }
      if (created) undo.dirs.push(real);
      await this.hooks.afterMkdir?.(real);
    }
  }
}

/** Inside the target folder, or one of its own ancestors (a target that does not exist yet is created too). */
function onPathTo(realFolder: string, real: string): boolean {
  return isInside(realFolder, real) || isInside(real, realFolder);
}

/** The real path of `target`'s folder, refused unless it is inside `realFolder` (a symlink swapped in is caught). */
async function checkedFolder(realFolder: string, target: string, file: ScaffoldFile): Promise<string> {
  const real = await fs.realpath(path.dirname(target));
  if (!isInside(realFolder, real)) {
    throw new UnsafePathError(file.relativePath, 'its folder was replaced by a link leading outside the target directory', file.field);
  }
  return real;
}

/** Writes `file` to a new temporary file beside `target` (in the folder's checked real path); returns its path. */
async function stage(realFolder: string, target: string, file: ScaffoldFile, undo: Undo): Promise<string> {
  const folder = await checkedFolder(realFolder, target, file);
  const temp = path.join(folder, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o644);
  undo.temps.push(temp);
  try {
    // O_NOFOLLOW guards the last name only: a folder swapped for a link between the check above and the open puts the
    // new (still empty) file outside. Where the open really landed is known from the descriptor; remove it there.
    const landed = await openedPath(handle.fd);
    if (landed !== undefined && !isInside(realFolder, path.dirname(landed))) {
      undo.temps = undo.temps.filter((t) => t !== temp);
      await fs.unlink(landed).catch(() => undefined);
      throw new UnsafePathError(file.relativePath, 'its folder was replaced by a link leading outside the target directory', file.field);
    }
    const written = await writeFully(handle, file.content, 0);
    await handle.sync();
    await assertSize(handle, written, target);
  } finally {
    await handle.close();
  }
  return temp;
}

/** Puts the staged file in place at `target` (its folder re-checked first). */
async function commit(realFolder: string, temp: string, target: string, file: ScaffoldFile, overwrite: boolean, undo: Undo): Promise<void> {
  const folder = await checkedFolder(realFolder, target, file);
  if (path.dirname(temp) !== folder) {
    throw new UnsafePathError(file.relativePath, 'its folder was moved while the scaffold was written', file.field);
  }
  const final = path.join(folder, path.basename(target));
  if (overwrite && (await exists(final))) {
    const backup = `${temp}.bak`;
    await fs.link(final, backup);
    undo.backups.push({ backup, target: final });
    await fs.rename(temp, final);
  } else {
    try {
      // link() never replaces: if anything (a file, a symlink) appeared at the name since the check, this fails.
      await fs.link(temp, final);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new AlreadyExistsError('file', target, 'it appeared while the scaffold was written');
      throw e;
    }
    undo.created.push(final);
    await fs.unlink(temp);
  }
  undo.temps = undo.temps.filter((t) => t !== temp);
}

/** Removes what this call created (files, temporaries, folders, deepest first) and puts replaced files back. */
async function rollback(undo: Undo): Promise<void> {
  for (const f of [...undo.created, ...undo.temps]) await fs.unlink(f).catch(() => undefined);
  for (const { backup, target } of undo.backups) await fs.rename(backup, target).catch(() => undefined);
  for (const d of [...undo.dirs].reverse()) await fs.rmdir(d).catch(() => undefined);
}

/** The path an open descriptor refers to, where the platform tells (Linux's /proc); undefined elsewhere. */
async function openedPath(fd: number): Promise<string | undefined> {
  try {
    return await fs.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** mkdir that tolerates a folder created meanwhile by someone else; true when this call created it. */
async function mkdirOnce(dir: string): Promise<boolean> {
  try {
    await fs.mkdir(dir);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
