import * as fs from 'node:fs/promises';
import { writeFileAtomic } from './atomic-write';
import { withFileLock, type FileLockOptions, type HeldLock } from './file-lock';
import { toStorageError } from './storage-errors';

/** How a document's text becomes a value and back. `R` is what reading gives, `W` what is written. */
export interface DocumentCodec<R, W = R> {
  /** Parses the file's text; throws (a StorageError naming the file, `damaged: true`) when it cannot be used. */
  parse(text: string, file: string): R;
  serialize(doc: W): string;
}

/** Turns an I/O failure into the error to throw: names the file, what was being done and what became of the data. */
export type StorageFailure = (e: unknown, file: string, action: string, outcome: string) => Error;

export interface LockedDocumentOptions {
  /** What the document is called in error messages (`cannot write <name> <file>: …`). Default `the file`. */
  name?: string;
  /** Lock settings (defaults of withFileLock: stale 10 s, up to 30 s of waiting for another holder). */
  lock?: FileLockOptions;
  /** How I/O failures are worded. Default: the kernel's toStorageError. */
  failure?: StorageFailure;
  /** Runs before every read (a data-format gate refusing a newer format). */
  beforeRead?: () => Promise<void>;
}

/** What a change decides: the next revision (none: nothing is written) and the value the caller gets. */
export interface DocumentSwap<W, T> {
  next?: W;
  value: T;
}

export interface SwapOptions<R, W> {
  /**
   * Writes the next revision. Default: the serialized document, atomically (temp file, fsync, rename). A store that
   * keeps a second file in step (a log the document records the length of) writes it here, first, and undoes it when
   * the document write fails: the document is the commit point.
   */
  commit?: (next: W, current: R | undefined, write: (doc: W) => Promise<void>) => Promise<void>;
  /**
   * Called when the current document cannot be read (damaged). Return true when it was dealt with (moved aside) and
   * the change goes on as if there were no document; false (the default) throws the read error.
   */
  recover?: (e: unknown) => Promise<boolean>;
}

const defaultFailure: StorageFailure = (e, file, action) => toStorageError(e, action, file);

/**
 * One JSON document in a folder that a cross-process lock guards (the folder's `.lock`), changed only by
 * compare-and-swap: under the lock the current revision is read, the caller decides the next one from it, and it is
 * written atomically (a reader without the lock sees either the old or the new revision, never a mix) only while the
 * lock is still held — a lock lost meanwhile (taken over as stale) stops the write with a LockError. Two processes
 * changing the same document therefore take turns, and each decides on what the other wrote. Errors say nothing was
 * changed because nothing was: the rename is the only step that changes the document.
 *
 * Used by the task graph store (src/modules/tasks/infrastructure/file-task-graph-store.ts); see docs/architecture.md.
 */
export class LockedDocument<R, W = R> {
  private readonly failure: StorageFailure;
  private readonly name: string;

  constructor(
    readonly file: string,
    /** The folder whose lock guards the document (usually the document's own folder). */
    readonly lockDir: string,
    private readonly codec: DocumentCodec<R, W>,
    private readonly options: LockedDocumentOptions = {},
  ) {
    this.failure = options.failure ?? defaultFailure;
    this.name = options.name ?? 'the file';
  }

  /** The current revision, or undefined when there is none. Needs no lock: writes are atomic renames. */
  async read(): Promise<R | undefined> {
    await this.options.beforeRead?.();
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.failure(e, this.file, `read ${this.name}`, 'check the file and its folder');
    }
    return this.codec.parse(text, this.file);
  }

  /**
   * Compare-and-swap under the lock: reads the current revision, lets `decide` compute the next one from it, and
   * writes that (see {@link SwapOptions.commit}) after checking the lock is still held. `action` words a lock
   * failure: `cannot <action> <lockDir>: <cause>; nothing was changed`.
   */
  async swap<T>(
    action: string,
    decide: (current: R | undefined, lock: HeldLock) => DocumentSwap<W, T> | Promise<DocumentSwap<W, T>>,
    opts: SwapOptions<R, W> = {},
  ): Promise<T> {
    return this.locked(action, async (lock) => {
      let current: R | undefined;
      try {
        current = await this.read();
      } catch (e) {
        if (!(await opts.recover?.(e))) throw e;
      }
      const { next, value } = await decide(current, lock);
      if (next !== undefined) {
        lock.assertHeld();
        const write = (doc: W): Promise<void> => this.write(doc);
        await (opts.commit ? opts.commit(next, current, write) : write(next));
      }
      return value;
    });
  }

  /** Runs `fn` holding the document's lock (for changes that are not one swap, such as an import). */
  async locked<T>(action: string, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.lockDir, fn, this.options.lock);
    } catch (e) {
      throw this.failure(e, this.lockDir, action, 'nothing was changed');
    }
  }

  /** Writes a revision atomically. Callers hold the lock (inside {@link swap} or {@link locked}). */
  async write(doc: W): Promise<void> {
    try {
      await writeFileAtomic(this.file, this.codec.serialize(doc));
    } catch (e) {
      throw this.failure(e, this.file, `write ${this.name}`, 'nothing was changed (the file is as it was)');
    }
  }
}
