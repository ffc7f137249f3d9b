import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { StorageError } from '../errors';
import { writeFileAtomic } from './atomic-write';
import { withFileLock } from './file-lock';
import { errnoCode, toStorageError } from './storage-errors';
import { makeDir } from './make-dir';

/**
 * The on-disk format of a data dir, recorded in `<data-dir>/format.json` as `{"format": N, "writtenBy": "..."}`.
 *
 * - Format 1 is the layout before this file existed (a data dir with a `projects/` folder and no format.json).
 * - A data dir of an older format is migrated on the first write: the steps whose `to` lies above its format run in
 *   order, each recorded in format.json as it completes (an interrupted migration resumes at the next step).
 * - A data dir written by a newer workgraph (format above {@link DATA_FORMAT_VERSION}) is refused, for reads and
 *   writes, with an error naming it: it would be misread.
 * Reads never migrate (a read-only data dir of an older format still answers).
 */
export const DATA_FORMAT_VERSION = 2;

/** One migration step: brings one module's files of a data dir from format `to - 1` to `to`. */
export interface MigrationStep {
  /** The format this step migrates to (2, 3, ...). Steps of one format run in list order. */
  to: number;
  /** What it changes, for logs and format.json. */
  description: string;
  /** Must be idempotent (it may run again when a migration was interrupted after its work, before its record). */
  run(dataDir: string): Promise<void>;
}

export const FORMAT_FILE = 'format.json';

interface FormatRecord {
  format: number;
  writtenBy?: string;
  /** Steps done towards the next format (when a migration was interrupted mid-format). */
  stepsDone?: string[];
}

/** What a store needs of the format: checks before reads and writes. */
export interface DataFormatGate {
  assertReadable(): Promise<void>;
  assertWritable(): Promise<void>;
}

export class DataFormat implements DataFormatGate {
  private readableChecked = false;
  private writableChecked: Promise<void> | undefined;

  constructor(
    readonly dataDir: string,
    private readonly steps: readonly MigrationStep[],
    private readonly writtenBy = 'workgraph',
    private readonly current = DATA_FORMAT_VERSION,
    private readonly onMigrated?: (step: MigrationStep) => void,
  ) {}

  get file(): string {
    return path.join(this.dataDir, FORMAT_FILE);
  }

  /** Refuses a data dir written by a newer version. Cheap after the first call. */
  async assertReadable(): Promise<void> {
    if (this.readableChecked) return;
    const rec = await this.read();
    this.refuseNewer(rec);
    this.readableChecked = true;
  }

  /** Refuses a newer data dir; migrates an older one (under the data dir's lock); records the format of a new one. */
  assertWritable(): Promise<void> {
    this.writableChecked ??= this.prepareForWrites().catch((e) => {
      this.writableChecked = undefined; // retried on the next write (e.g. once space is back)
      throw e;
    });
    return this.writableChecked;
  }

  private async prepareForWrites(): Promise<void> {
    const first = await this.read();
    this.refuseNewer(first);
    if (first && first.format === this.current && !first.stepsDone?.length) return;
    if (!first && !(await hasProjects(this.dataDir))) {
      // A fresh data dir: nothing to migrate, so no lock (servers racing here write the same file atomically).
      await makeDir(this.dataDir).catch((e) => {
        throw toStorageError(e, 'create', this.dataDir);
      });
      await this.write({ format: this.current });
      this.readableChecked = true;
      return;
    }
    await withFileLock(this.dataDir, async (lock) => {
      let rec = await this.read();
      this.refuseNewer(rec);
      if (!rec) {
        // No format.json: a fresh data dir is written in the current format; one with projects is today's format 1.
        if (!(await hasProjects(this.dataDir))) {
          await this.write({ format: this.current });
          return;
        }
        rec = { format: 1 };
      }
      for (let to = rec.format + 1; to <= this.current; to++) {
        const done = new Set(rec.stepsDone ?? []);
        for (const step of this.steps.filter((s) => s.to === to)) {
          if (done.has(step.description)) continue;
          lock.assertHeld();
          try {
            await step.run(this.dataDir);
          } catch (e) {
            throw toStorageError(e, `migrate (${step.description}) the data dir`, this.dataDir);
          }
          done.add(step.description);
          rec = { format: to - 1, stepsDone: [...done] };
          await this.write(rec);
          this.onMigrated?.(step);
        }
        rec = { format: to };
        await this.write(rec);
      }
    });
    this.readableChecked = true;
  }

  private refuseNewer(rec: FormatRecord | undefined): void {
    if (rec && rec.format > this.current) {
      throw new StorageError(
        `data dir ${this.dataDir} was written by a newer workgraph (${this.file}: format ${rec.format}${rec.writtenBy ? `, by ${rec.writtenBy}` : ''}; this version reads formats up to ${this.current}): upgrade workgraph or use another --data-dir`,
        { file: this.file, format: rec.format, supported: this.current },
      );
    }
  }

  private async read(): Promise<FormatRecord | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return undefined;
      throw toStorageError(e, 'read', this.file);
    }
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch {
      rec = undefined;
    }
    const format = (rec as FormatRecord | undefined)?.format;
    if (typeof format !== 'number' || !Number.isInteger(format) || format < 1) {
      throw new StorageError(`${this.file} is damaged (expected {"format": <integer>}); restore it or remove it to have it written again`, {
        file: this.file,
      });
    }
    return rec as FormatRecord;
  }

  private async write(rec: FormatRecord): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify({ ...rec, writtenBy: this.writtenBy }, null, 2) + '\n');
  }
}

async function hasProjects(dataDir: string): Promise<boolean> {
  try {
    return (await fs.readdir(path.join(dataDir, 'projects'))).length > 0;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return false;
    throw toStorageError(e, 'read', path.join(dataDir, 'projects'));
  }
}
