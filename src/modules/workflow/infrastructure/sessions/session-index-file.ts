import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { withFileLock } from '../../../../kernel/files/file-lock';
import { writeFileAtomic } from '../../../../kernel/files/atomic-write';
import { appendLines } from '../../../../kernel/files/write-fully';
import type { SessionSummary } from '../../domain/sessions';

type IndexLine = { s: SessionSummary } | { deleted: string };

/**
 * The session index: `<sessions>/index.ndjson`, one line per change (the session's summary, or its deletion), last
 * line per session wins. Appends and compaction hold the sessions folder's lock. A reader keeps what it has read and
 * reads only what was appended since (by byte offset; a compaction is noticed by the file's inode), so listing
 * 10,000 sessions costs a map walk, not 10,000 file opens.
 */
export class SessionIndexFile {
  private cache?: { ino: number; offset: number; lines: number; map: Map<string, SessionSummary> };

  constructor(private readonly root: string) {}

  get file(): string {
    return path.join(this.root, 'index.ndjson');
  }

  /**
   * Appends one session's summary (or its deletion); compacts when the file holds far more lines than sessions. The
   * append starts on a fresh line (a line torn by a crash never swallows this one). `durable`: fsynced — for a new
   * session's first line and a deletion; a later summary lost to a machine crash only shows the session's previous
   * summary until its next change.
   */
  async append(line: IndexLine, opts: { durable?: boolean } = {}): Promise<void> {
    await withFileLock(this.root, async () => {
      await appendLines(this.file, `${JSON.stringify(line)}\n`, { sync: opts.durable ?? false });
      const current = await this.read();
      if (current.lines > 2 * current.map.size + 1_000) await this.compact(current.map);
    });
  }

  /** Every live session's summary. */
  async read(): Promise<{ map: Map<string, SessionSummary>; lines: number }> {
    let stat;
    try {
      stat = await fs.stat(this.file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { map: new Map(), lines: 0 };
      throw e;
    }
    let c = this.cache;
    if (!c || c.ino !== stat.ino || stat.size < c.offset) c = { ino: stat.ino, offset: 0, lines: 0, map: new Map() };
    if (stat.size > c.offset) {
      const handle = await fs.open(this.file, 'r');
      try {
        const buf = Buffer.alloc(stat.size - c.offset);
        await handle.read(buf, 0, buf.length, c.offset);
        // Only whole lines: an append in progress is read next time.
        const end = buf.lastIndexOf(0x0a) + 1;
        for (const text of buf.subarray(0, end).toString('utf8').split('\n')) {
          if (!text) continue;
          c.lines++;
          try {
            const line = JSON.parse(text) as IndexLine;
            if ('deleted' in line) c.map.delete(line.deleted);
            else if (line.s?.sessionId) c.map.set(line.s.sessionId, line.s);
          } catch {
            // A line cut by a crash: the next summary of that session replaces it.
          }
        }
        c.offset += end;
      } finally {
        await handle.close();
      }
    }
    this.cache = c;
    return { map: c.map, lines: c.lines };
  }

  /** Rewrites the index with one line per session (caller holds the lock). */
  async rewrite(summaries: Iterable<SessionSummary>): Promise<void> {
    const map = new Map<string, SessionSummary>();
    for (const s of summaries) map.set(s.sessionId, s);
    await this.compact(map);
  }

  private async compact(map: Map<string, SessionSummary>): Promise<void> {
    await writeFileAtomic(this.file, [...map.values()].map((s) => `${JSON.stringify({ s })}\n`).join(''));
    this.cache = undefined;
  }
}
