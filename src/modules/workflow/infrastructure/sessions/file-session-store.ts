import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { withFileLock } from '../../../../kernel/files/file-lock';
import { tempPathFor, writeFileAtomic } from '../../../../kernel/files/atomic-write';
import { AlreadyExistsError, LimitExceededError, NotFoundError, StorageError } from '../../../../kernel/errors';
import type { Logger } from '../../../../kernel/logger';
import type { ChangeEvents } from '../../../../kernel/change-events';
import {
  foldCheckedSessionEvents,
  foldSessionEvents,
  sameSessionEvents,
  summarizeSession,
  type SessionEvent,
  type SessionStartedEvent,
  type SessionState,
  type SessionSummary,
  type RunningVerification,
} from '../../domain/sessions';
import type { DamagedLine, SessionChange, SessionHistory, SessionListFilter, SessionStore } from '../../application/ports/session-store';
import { appendLines, readLog } from './session-log-file';
import { checkedFold, lastLineOf } from './session-log-fold';
import { markOf, readSnapshot, writeSnapshot } from './session-snapshot-file';
import { SessionIndexFile } from './session-index-file';
import { importedState } from './imported-session';
import { makeDir } from '../../../../kernel/files/make-dir';
import { readRunningVerifications, removeRunningVerification, writeRunningVerification } from './running-verification-file';

const SESSION_ID = /^[0-9a-f]{16}$/;

/**
 * Sessions as files: `<data-dir>/sessions/<id>/` holds `events.ndjson` (append-only, one event per line, written under
 * the session's lock with one write per call), `snapshot.json` (the folded state and the log offset it covers, so a
 * call reads the snapshot plus at most a short tail — O(1) in the session's length) and `workflow.json` (the pinned
 * workflow), and `running-<runId>.json` while a verification command runs (running-verification-file.ts).
 * `<data-dir>/sessions/index.ndjson` lists every session for listing and resume.
 *
 * The snapshot is written after the log (temp file + rename, no fsync: it is a cache — when it is missing, torn or
 * behind, the log's tail or the whole log is folded again).
 */
export class FileSessionStore implements SessionStore {
  private readonly index: SessionIndexFile;

  constructor(
    readonly root: string,
    private readonly logger: Logger,
    private readonly changes?: ChangeEvents,
    /** The largest a session's log may grow (--session-log-mb): an update past it is refused, nothing written. */
    private readonly logMaxBytes = 64 * 1024 * 1024,
  ) {
    this.index = new SessionIndexFile(root);
  }

  async create(first: SessionStartedEvent, workflowText: string): Promise<SessionState> {
    return this.write([first], workflowText);
  }

  async importSession(events: readonly SessionEvent[], workflowText: string, opts: { replace?: boolean } = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    const { sessionId } = importedState(events);
    if (await exists(this.eventsFile(sessionId))) {
      const same = (await this.pinnedWorkflow(sessionId)) === workflowText && sameSessionEvents((await this.history(sessionId)).events, events);
      if (same) return 'unchanged';
      if (!opts.replace) return 'skipped';
      await this.delete(sessionId);
    }
    await this.write(events, workflowText);
    return 'imported';
  }

  /** A new session folder: the pinned workflow, the whole log in one write, its snapshot, then the index entry. */
  private async write(events: readonly SessionEvent[], workflowText: string): Promise<SessionState> {
    const { sessionId } = events[0] as SessionStartedEvent;
    const dir = this.dir(sessionId);
    await makeDir(this.root);
    try {
      await fs.mkdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new AlreadyExistsError('session', sessionId);
      throw e;
    }
    let state: SessionState;
    try {
      state = await withFileLock(dir, async (lock) => {
        await writeFileAtomic(path.join(dir, 'workflow.json'), workflowText);
        const text = events.map((e) => `${JSON.stringify(e)}\n`).join('');
        lock.assertHeld();
        await appendLines(this.eventsFile(sessionId), text);
        const s = foldSessionEvents(undefined, events) as SessionState;
        await writeSnapshot(this.snapshotFile(sessionId), { version: 2, logOffset: Buffer.byteLength(text), lines: events.length, tail: markOf(lastLineOf(text)), state: s });
        return s;
      });
    } catch (e) {
      // Nothing of a session that could not be written stays behind (a folder without its log would be not_found
      // anyway, but would block its id).
      await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw e;
    }
    await this.afterChange(state, true);
    return state;
  }

  async load(sessionId: string): Promise<SessionState> {
    return (await this.current(sessionId, false)).state;
  }

  async update<T>(sessionId: string, decide: (state: SessionState, history: () => Promise<SessionHistory>) => Promise<SessionChange<T>>): Promise<T> {
    const dir = this.dir(sessionId);
    await this.mustExist(sessionId);
    let changed: SessionState | undefined;
    const result = await withFileLock(dir, async (lock) => {
      const cur = await this.current(sessionId, true);
      const change = await decide(cur.state, () => this.history(sessionId));
      if (!change.events.length) return change.result;
      // The new events must follow the log like any line read back (a writer's bug never reaches the disk).
      const checked = foldCheckedSessionEvents(cur.state, change.events);
      if (checked.skipped.length) {
        throw new StorageError(`session '${sessionId}': refused to write an event that ${checked.skipped[0]!.reason.replace(/; ignored$/, '')}`, { sessionId });
      }
      const state = checked.state as SessionState;
      const text = change.events.map((e) => JSON.stringify(e)).join('\n') + '\n';
      const grown = cur.size + Buffer.byteLength(text) + (cur.endsClean ? 0 : 1);
      if (grown > this.logMaxBytes) {
        throw new LimitExceededError(
          `session '${sessionId}': its log would grow to ${grown} bytes, past the ${this.logMaxBytes} a session's log may hold (--session-log-mb); nothing was written — start a new session to go on`,
          { limit: 'session-log-mb', max: this.logMaxBytes, size: grown, sessionId },
        );
      }
      lock.assertHeld();
      // A cut last line stays in the log as its own (damaged) line: the kernel's append starts on a fresh line.
      const appended = await appendLines(this.eventsFile(sessionId), text);
      const closedTornLine = appended.after - appended.before > Buffer.byteLength(text) ? 1 : 0;
      await writeSnapshot(this.snapshotFile(sessionId), {
        version: 2,
        logOffset: appended.after,
        lines: cur.lines + change.events.length + closedTornLine,
        tail: markOf(lastLineOf(text)),
        state,
      }).catch((e) => this.logger.warn('could not write the session snapshot; the log is intact and is folded next time', { sessionId, err: (e as Error).message }));
      changed = state;
      return change.result;
    });
    if (changed) await this.afterChange(changed);
    return result;
  }

  async history(sessionId: string): Promise<SessionHistory> {
    await this.mustExist(sessionId);
    const read = await readLog(this.eventsFile(sessionId));
    const checked = checkedFold(undefined, read);
    return { events: checked.applied, damaged: checked.damaged };
  }

  async pinnedWorkflow(sessionId: string): Promise<string> {
    await this.mustExist(sessionId);
    return fs.readFile(path.join(this.dir(sessionId), 'workflow.json'), 'utf8');
  }

  async list(filter: SessionListFilter = {}): Promise<SessionSummary[]> {
    let { map } = await this.index.read();
    if (map.size === 0) map = await this.rebuildIndexIfNeeded(map);
    const out: SessionSummary[] = [];
    for (const s of map.values()) {
      if (filter.statuses?.length && !filter.statuses.includes(s.status)) continue;
      if (filter.workflowId && s.workflowId !== filter.workflowId) continue;
      if (filter.workspacePath && s.workspacePath !== filter.workspacePath.replace(/[\\/]+$/, '')) continue;
      out.push(s);
    }
    return out.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.sessionId < b.sessionId ? -1 : 1));
  }

  async delete(sessionId: string): Promise<boolean> {
    if (!SESSION_ID.test(sessionId)) return false;
    const dir = this.dir(sessionId);
    if (!(await exists(dir))) return false;
    // Moved aside first (one rename), so a crash never leaves a half-deleted session that still looks alive.
    const trash = tempPathFor(dir);
    await withFileLock(dir, async () => {
      await fs.rename(dir, trash);
    }).catch((e) => {
      // The lock lived inside the moved folder; its release fails harmlessly.
      if (!(e instanceof Error) || !/lock/i.test(e.message)) throw e;
    });
    await fs.rm(trash, { recursive: true, force: true });
    await this.index.append({ deleted: sessionId }, { durable: true });
    this.changes?.publish({ kind: 'session', id: sessionId, at: new Date().toISOString() });
    return true;
  }

  /**
   * The state from the snapshot plus the log's tail — or from the whole log when the snapshot is missing, does not
   * match the log (see session-snapshot-file.ts), or its state cannot take the tail's events; the log is trusted over
   * the cache, and a snapshot rebuilt from the log is written back.
   */
  private async current(sessionId: string, locked: boolean): Promise<{ state: SessionState; size: number; lines: number; endsClean: boolean }> {
    await this.mustExist(sessionId);
    const file = this.eventsFile(sessionId);
    const found = await readSnapshot(this.snapshotFile(sessionId), file, sessionId);
    let problem = found.problem;
    if (found.snap) {
      const snap = found.snap;
      const read = await readLog(file, snap.logOffset, snap.lines + 1);
      const checked = checkedFold(snap.state, read);
      // A tail event that does not follow the snapshot's state may be the snapshot's fault: the whole log decides.
      if (checked.skipped === 0) {
        if (locked) this.warnDamaged(sessionId, checked.damaged);
        return { state: checked.state as SessionState, size: read.size, lines: snap.lines + read.completeLines, endsClean: read.endsClean };
      }
      problem = 'its state cannot take the events logged after it';
    }
    if (problem) this.logger.warn('session snapshot not used (the log is folded again and the snapshot rebuilt)', { sessionId, reason: `snapshot.json ${problem}` });
    const read = await readLog(file);
    const checked = checkedFold(undefined, read);
    if (locked) this.warnDamaged(sessionId, checked.damaged);
    if (!checked.state) throw new StorageError(`session '${sessionId}': its log ${file} holds no session_started event`, { sessionId, file });
    if (read.lastLine) {
      await writeSnapshot(this.snapshotFile(sessionId), { version: 2, logOffset: read.endOfLastLine, lines: read.completeLines, tail: markOf(read.lastLine), state: checked.state }).catch(
        (e) => this.logger.warn('could not write the session snapshot; the log is intact and is folded next time', { sessionId, err: (e as Error).message }),
      );
    }
    return { state: checked.state, size: read.size, lines: read.completeLines, endsClean: read.endsClean };
  }

  private warnDamaged(sessionId: string, damaged: readonly DamagedLine[]): void {
    for (const d of damaged) this.logger.warn('session log: skipped a damaged line', { sessionId, line: d.line, reason: d.reason });
  }

  private snapshotFile(sessionId: string): string {
    return path.join(this.dir(sessionId), 'snapshot.json');
  }

  private async afterChange(state: SessionState, durable = false): Promise<void> {
    try {
      await this.index.append({ s: summarizeSession(state) }, { durable });
    } catch (e) {
      this.logger.warn('could not update the session index; listing shows the old entry until the next change', { sessionId: state.sessionId, err: (e as Error).message });
    }
    this.changes?.publish({ kind: 'session', id: state.sessionId, at: state.updatedAt });
  }

  /** Without an index (first use after an upgrade, or the file was deleted) the folders are read once to build it. */
  private async rebuildIndexIfNeeded(map: Map<string, SessionSummary>): Promise<Map<string, SessionSummary>> {
    if (await exists(this.index.file)) return map;
    let names: string[];
    try {
      names = (await fs.readdir(this.root)).filter((n) => SESSION_ID.test(n));
    } catch {
      return map;
    }
    if (!names.length) return map;
    const summaries: SessionSummary[] = [];
    for (const id of names) {
      try {
        summaries.push(summarizeSession(await this.load(id)));
      } catch (e) {
        this.logger.warn('session folder skipped while rebuilding the index', { sessionId: id, err: (e as Error).message });
      }
    }
    await withFileLock(this.root, async () => {
      if (!(await exists(this.index.file))) await this.index.rewrite(summaries);
    });
    return (await this.index.read()).map;
  }

  async runningVerifications(sessionId: string): Promise<RunningVerification[]> {
    // One folder read on every continue: no other check (a session that does not exist has no record).
    return readRunningVerifications(this.dir(sessionId));
  }

  async setRunningVerification(sessionId: string, run: RunningVerification): Promise<void> {
    await this.mustExist(sessionId);
    await writeRunningVerification(this.dir(sessionId), run);
  }

  async clearRunningVerification(sessionId: string, runId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) return;
    await removeRunningVerification(this.dir(sessionId), runId);
  }

  private async mustExist(sessionId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId) || !(await exists(this.eventsFile(sessionId)))) throw new NotFoundError('session', sessionId);
  }

  private dir(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new NotFoundError('session', sessionId, `session '${sessionId}' not found (a session id is 16 hex digits)`);
    return path.join(this.root, sessionId);
  }

  private eventsFile(sessionId: string): string {
    return path.join(this.dir(sessionId), 'events.ndjson');
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}
