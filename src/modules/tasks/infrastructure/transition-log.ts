import * as fs from 'node:fs/promises';
import type { ArchivedAttemptRecord, TaskErrorLog, TaskTransition } from '../domain';
import { StorageError } from '../../../kernel/errors';
import { appendLines, truncateFile } from '../../../kernel/files/write-fully';

/** A line of the transition log that is not valid JSON (a crash cut it): skipped by readers, reported here. */
export interface TornLogLine {
  /** 1-based line number. */
  line: number;
  /** The line's first 80 characters. */
  preview: string;
}

/** An attempt record moved out of the graph file by an upgrade (older files kept every attempt). */
export interface ArchivedRecordLine {
  kind: 'attempt_record';
  node: string;
  attempt: number;
  time: string;
  record: TaskErrorLog;
}

export interface TransitionLogContents {
  transitions: TaskTransition[];
  archived: ArchivedRecordLine[];
  torn: TornLogLine[];
}

/** Serialises status changes (and archived records) as log lines. Field order of a transition: from, to, node, time, attempt, record, actor. */
export function logLines(transitions: readonly TaskTransition[], archived: readonly ArchivedAttemptRecord[] = []): string {
  const lines = archived.map((a) =>
    JSON.stringify({ kind: 'attempt_record', node: a.node, attempt: a.record.attempt, time: a.record.time, record: a.record }),
  );
  for (const t of transitions) {
    const line: TaskTransition = { from: t.from, to: t.to, node: t.node, time: t.time, attempt: t.attempt };
    if (t.record) line.record = t.record;
    if (t.actor) line.actor = t.actor;
    lines.push(JSON.stringify(line));
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}

/**
 * The append-only transition log of a project. Appends go through {@link appendFully} (all bytes or none) and always
 * start on a fresh line, so a torn line left by a crash never swallows the next record.
 */
export class TransitionLog {
  constructor(readonly file: string) {}

  /** The log's length in bytes (0 when missing). */
  async size(): Promise<number> {
    try {
      return (await fs.stat(this.file)).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
  }

  /** Cuts the log back to `length` bytes (records of a write that never took effect). */
  async cutBack(length: number): Promise<void> {
    await truncateFile(this.file, length).catch(rawCause);
  }

  /** Appends `text` (whole lines) through the kernel's checked append, first ending a torn last line. Returns the lengths before and after. */
  async append(text: string): Promise<{ before: number; after: number }> {
    return appendLines(this.file, text).catch(rawCause);
  }

  /** The log's records up to `upTo` bytes (all when undefined). */
  async read(upTo?: number): Promise<TransitionLogContents> {
    let text: string;
    try {
      const bytes = await fs.readFile(this.file);
      text = (upTo !== undefined && upTo < bytes.length ? bytes.subarray(0, upTo) : bytes).toString('utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { transitions: [], archived: [], torn: [] };
      throw e;
    }
    const out: TransitionLogContents = { transitions: [], archived: [], torn: [] };
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        out.torn.push({ line: i + 1, preview: line.slice(0, 80) });
        return;
      }
      const v = value as Partial<ArchivedRecordLine & TaskTransition>;
      if (v && v.kind === 'attempt_record') out.archived.push(v as ArchivedRecordLine);
      else if (v && typeof v.from === 'string' && typeof v.to === 'string') out.transitions.push(v as TaskTransition);
      else out.torn.push({ line: i + 1, preview: line.slice(0, 80) });
    });
    return out;
  }
}

/** The errno error behind a kernel StorageError: the task store words its own message (`cannot … ; nothing was changed`). */
function rawCause(e: unknown): never {
  const cause = e instanceof StorageError ? (e as Error & { cause?: unknown }).cause : undefined;
  throw typeof (cause as NodeJS.ErrnoException | undefined)?.code === 'string' ? cause : e;
}
