import * as fs from 'node:fs/promises';
import { appendLines as appendKernelLines } from '../../../../kernel/files/write-fully';
import { isSessionEvent, type SessionEvent } from '../../domain/sessions';
import type { DamagedLine } from '../../application/ports/session-store';

/** The lines of a log read from some byte offset: events in order, damaged lines, where it ends. */
export interface LogRead {
  events: SessionEvent[];
  /** The line number of each event (parallel to `events`). */
  eventLines: number[];
  /** The last complete line read (with its newline), for the snapshot's tail mark; undefined when none was read. */
  lastLine?: Buffer;
  damaged: DamagedLine[];
  /** Complete (newline-terminated) lines read. */
  completeLines: number;
  /** File size when read. */
  size: number;
  /** Offset just after the last complete line. */
  endOfLastLine: number;
  /** False when the file ends with bytes that are not newline-terminated (a cut last line). */
  endsClean: boolean;
}

/**
 * Reads `file` from byte `from` (which must be the start of a line). A last line without its newline was cut by a
 * crash during the append: it is not an event (its write was never acknowledged), so it is skipped and reported.
 * A complete line that is not a valid event is reported too, never folded, never fatal.
 */
export async function readLog(file: string, from = 0, firstLineNo = 1): Promise<LogRead> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= from) return { events: [], eventLines: [], completeLines: 0, damaged: [], size, endOfLastLine: size, endsClean: true };
    const buf = Buffer.alloc(size - from);
    await handle.read(buf, 0, buf.length, from);
    const events: SessionEvent[] = [];
    const eventLines: number[] = [];
    const damaged: DamagedLine[] = [];
    let lastLine: Buffer | undefined;
    let start = 0;
    let lineNo = firstLineNo;
    while (start < buf.length) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) {
        damaged.push({ line: lineNo, excerpt: excerpt(buf.subarray(start).toString('utf8')), reason: 'incomplete last line (cut by a crash during an append); ignored' });
        return { events, eventLines, lastLine, completeLines: lineNo - firstLineNo, damaged, size, endOfLastLine: from + start, endsClean: false };
      }
      const text = buf.subarray(start, nl).toString('utf8');
      if (text.trim() !== '') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          damaged.push({ line: lineNo, excerpt: excerpt(text), reason: `not JSON (${(e as Error).message})` });
        }
        if (parsed !== undefined) {
          if (isSessionEvent(parsed)) {
            events.push(parsed);
            eventLines.push(lineNo);
          }
          else damaged.push({ line: lineNo, excerpt: excerpt(text), reason: 'not a session event' });
        }
      }
      lastLine = buf.subarray(start, nl + 1);
      start = nl + 1;
      lineNo++;
    }
    return { events, eventLines, lastLine, completeLines: lineNo - firstLineNo, damaged, size, endOfLastLine: size, endsClean: true };
  } finally {
    await handle.close();
  }
}

/**
 * Appends whole event lines through the kernel's checked append (kernel/files/write-fully.ts): every byte written and
 * fsynced, or a StorageError naming the log with the log cut back to its old length — an advance is acknowledged only
 * once all of it is on disk. It always starts on a fresh line: a line cut by a crash stays a damaged line of its own.
 * Callers hold the session's lock, so appends never interleave. Returns the log's length before and after.
 */
export async function appendLines(file: string, text: string): Promise<{ before: number; after: number }> {
  return appendKernelLines(file, text);
}

export function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
