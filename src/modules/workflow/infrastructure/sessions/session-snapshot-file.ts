import * as fs from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { writeFileAtomic } from '../../../../kernel/files/atomic-write';
import type { SessionState } from '../../domain/sessions';

/**
 * A session's `snapshot.json`: the folded state and the log offset it covers, so a call reads the snapshot plus at
 * most a short tail of the log. It is a cache, and the log is trusted over it: a snapshot is used only when it is
 * well formed, belongs to this session, ends on a line boundary inside the log, and the log line it says it ended
 * with is the one there (its length and sha256). Anything else and the whole log is folded again.
 */
export interface Snapshot {
  version: 2;
  /** Byte offset in events.ndjson just after the last line folded into `state`. */
  logOffset: number;
  /** Number of log lines up to logOffset (for line numbers of damaged lines). */
  lines: number;
  /** The last log line covered (with its newline): its length in bytes and sha256, to recognise the log it came from. */
  tail: LineMark;
  state: SessionState;
}

export interface LineMark {
  bytes: number;
  sha256: string;
}

export function markOf(line: Buffer | string): LineMark {
  const buf = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
  return { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
}

/** A snapshot read back: usable, or why not (for the log line saying it was rebuilt). Missing is no problem. */
export type SnapshotRead = { snap: Snapshot; problem?: undefined } | { snap?: undefined; problem?: string };

export async function readSnapshot(file: string, logFile: string, sessionId: string): Promise<SnapshotRead> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `cannot be read (${(e as Error).message})` };
  }
  let snap: Snapshot;
  try {
    snap = JSON.parse(text) as Snapshot;
  } catch {
    return { problem: 'is not JSON (torn?)' };
  }
  // A snapshot written before the tail mark (version 1): folded again from the log and rewritten, without a warning.
  if (snap && typeof snap === 'object' && (snap as { version?: unknown }).version === 1) return {};
  const shape = shapeProblem(snap, sessionId);
  if (shape) return { problem: shape };
  const tail = await tailProblem(logFile, snap);
  return tail ? { problem: tail } : { snap };
}

export async function writeSnapshot(file: string, snap: Snapshot): Promise<void> {
  // A cache: no fsync (a snapshot lost or torn by a machine crash is rebuilt from the log).
  await writeFileAtomic(file, JSON.stringify(snap), { sync: false });
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function shapeProblem(snap: Snapshot, sessionId: string): string | undefined {
  if (!isObj(snap)) return 'is not an object';
  if (snap.version !== 2) return `has version ${JSON.stringify(snap.version)}, not 2`;
  if (!isCount(snap.logOffset) || snap.logOffset === 0 || !isCount(snap.lines)) return 'has no valid logOffset/lines';
  if (!isObj(snap.tail) || !isCount(snap.tail.bytes) || snap.tail.bytes === 0 || snap.tail.bytes > snap.logOffset || typeof snap.tail.sha256 !== 'string') {
    return 'has no valid tail mark';
  }
  const s = snap.state as unknown as Record<string, unknown>;
  if (!isObj(s)) return 'has no state';
  if (s.sessionId !== sessionId) return `belongs to session ${JSON.stringify(s.sessionId)}`;
  for (const k of ['workflowId', 'workflowVersion', 'workflowHash', 'createdAt', 'updatedAt', 'status'] as const) {
    if (typeof s[k] !== 'string') return `state.${k} is not a string`;
  }
  if (!['active', 'needs_attention', 'complete'].includes(s.status as string)) return `state.status ${JSON.stringify(s.status)} is unknown`;
  for (const k of ['nodeCount', 'eventCount', 'forks'] as const) if (!isCount(s[k])) return `state.${k} is not a count`;
  if (!Array.isArray(s.checkpoints)) return 'state.checkpoints is not a list';
  const h = s.head as Record<string, unknown>;
  if (!isObj(h)) return 'state.head is missing';
  if (!isCount(h.node) || h.node >= (s.nodeCount as number)) return 'state.head.node is not a point of the session';
  if (!Array.isArray(h.completedSteps) || !h.completedSteps.every((c) => typeof c === 'string')) return 'state.head.completedSteps is not a list of ids';
  if (!isObj(h.context)) return 'state.head.context is not an object';
  if (!(h.current === null || (isObj(h.current) && typeof h.current.completionId === 'string' && typeof h.current.stepId === 'string'))) {
    return 'state.head.current is neither a step nor null';
  }
  if (!isCount(h.blockedAttempts) || !Array.isArray(h.recentNotes)) return 'state.head is incomplete';
  return undefined;
}

/** The log must hold, just before `logOffset`, the very line the snapshot ended with. O(1): reads that line only. */
async function tailProblem(logFile: string, snap: Snapshot): Promise<string | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(logFile, 'r');
  } catch (e) {
    return `its log cannot be read (${(e as Error).message})`;
  }
  try {
    const { size } = await handle.stat();
    if (size < snap.logOffset) return `covers ${snap.logOffset} bytes of a log of ${size}`;
    const buf = Buffer.alloc(snap.tail.bytes);
    const { bytesRead } = await handle.read(buf, 0, buf.length, snap.logOffset - snap.tail.bytes);
    if (bytesRead !== buf.length || buf[buf.length - 1] !== 0x0a) return 'does not end on a line of the log';
    if (snap.tail.bytes < snap.logOffset) {
      const before = Buffer.alloc(1);
      await handle.read(before, 0, 1, snap.logOffset - snap.tail.bytes - 1);
      if (before[0] !== 0x0a) return 'does not end on a line of the log';
    }
    if (markOf(buf).sha256 !== snap.tail.sha256) return 'ends with a line the log does not hold there';
    return undefined;
  } finally {
    await handle.close();
  }
}
