import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { assertSize, commitTempFile, tempPathFor, writeAll } from '../../../kernel/files/atomic-write';
import type { HeldLock } from '../../../kernel/files/file-lock';
import { toStorageError } from '../../../kernel/files/storage-errors';
import { forEachLine } from './line-reader';
import { MalformedCollector, type RebuildReport } from './ndjson-passes';
import type { RewriteTrack } from './search-index/rewrite-map';
import { graphIdentity } from './search-index/index-manifest';

/** Markers of {@link rewriteNdjsonFile}'s map: keep the line's bytes as they are (and report it). */
export const KEEP = Symbol('keep');
export const MALFORMED = Symbol('malformed');
const NEWLINE = Buffer.from('\n');

/**
 * Under the lock: streams `file` line by line through `map` into a temp file in the same folder, then (when
 * `changed()`) fsyncs, checks the temp file holds every byte written, and renames it over `file`. `map` returns the
 * line to write, null to drop it, KEEP to keep it byte for byte, or MALFORMED to keep it byte for byte and report it
 * (invalid UTF-8 included). Leftover temp files of crashed rebuilds are removed first (no one else rebuilds: we hold
 * the lock). Any failure leaves `file` as it was and is a StorageError naming it. The writer's rebuilds of the graph
 * and of the deletion records (ndjson-graph-writer.ts) go through it.
 */
export async function rewriteNdjsonFile(
  lock: HeldLock,
  file: string,
  map: (text: string) => string | null | typeof KEEP | typeof MALFORMED,
  changed: () => boolean,
  signal?: AbortSignal,
  track?: RewriteTrack,
): Promise<RebuildReport> {
  lock.assertHeld();
  await removeLeftoverTemps(path.dirname(file), path.basename(file));
  // What the rewrite does to each line's place, for the search index to follow (rewrite-map.ts).
  if (track) track.source = graphIdentity(file);
  let delta = 0;
  const at = (offset: number) => {
    const d = written + pendingLen - offset;
    if (d !== delta) {
      track!.moves.push(offset, d);
      delta = d;
    }
  };
  const tmp = tempPathFor(file);
  let out: fs.FileHandle;
  try {
    out = await fs.open(tmp, 'w', 0o644);
  } catch (e) {
    throw toStorageError(e, 'rewrite', file);
  }
  const malformed = new MalformedCollector();
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let written = 0;
  let closed = false;
  const push = (b: Buffer) => {
    pending.push(b, NEWLINE);
    pendingLen += b.length + 1;
  };
  try {
    const { lines, bytes } = await forEachLine(
      file,
      (text, offset, lineNo, _terminated, raw) => {
        if (track) at(offset);
        if (text === '') return;
        const mapped = map(text);
        if (track && typeof mapped !== 'symbol') {
          track.removed.push(offset);
          if (mapped !== null) track.replaced.push(offset);
        }
        if (mapped === MALFORMED) {
          malformed.add(lineNo, offset, text);
          push(raw);
        } else if (mapped === KEEP) push(raw);
        else if (mapped !== null) push(Buffer.from(mapped, 'utf8'));
      },
      {
        signal,
        afterChunk: async () => {
          if (pendingLen === 0) return;
          const data = Buffer.concat(pending, pendingLen);
          pending = [];
          pendingLen = 0;
          written += await writeAll(out, data, written);
        },
      },
    );
    const report = malformed.report(lines);
    if (track) {
      at(bytes);
      track.read = bytes;
    }
    if (!changed()) {
      await out.close();
      closed = true;
      await fs.rm(tmp, { force: true });
      return { ...report, dropped: 0, rewritten: 0, committed: false };
    }
    await out.sync();
    await assertSize(out, written, file);
    await out.close();
    closed = true;
    lock.assertHeld();
    await commitTempFile(tmp, file);
    if (track) track.result = graphIdentity(file);
    return { ...report, dropped: 0, rewritten: 0, committed: true };
  } catch (e) {
    if (!closed) await out.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw toStorageError(e, 'rewrite', file);
  }
}

/** Removes `.<name>.tmp-*` files left by a rebuild that crashed (see tempPathFor). */
async function removeLeftoverTemps(dir: string, name: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch {
    return;
  }
  const prefix = `.${name}.tmp-`;
  await Promise.all(entries.filter((e) => e.startsWith(prefix)).map((e) => fs.rm(path.join(dir, e), { force: true })));
}
