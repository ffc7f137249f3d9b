import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendAll, setWriteImplForTests, writeAll, writeFileAtomic, type WriteFn } from '../../../../src/kernel/files/atomic-write';
import { isWorkgraphError } from '../../../../src/kernel/errors';
import { appendFully, appendLines, truncateFile } from '../../../../src/kernel/files/write-fully';
import * as fsSync from 'node:fs';
import { copyFileExclusive, writeFileIfAbsent, writeRecordInPlace } from '../../../../src/kernel/files/atomic-write';

/** A write that writes at most `max` bytes per call, and after `budget` bytes in all, nothing (a disk filling up). */
function shortWrites(max: number, budget = Infinity): { fn: WriteFn; calls: () => number } {
  let calls = 0;
  let left = budget;
  return {
    calls: () => calls,
    fn: async (handle, buf, offset, length, position) => {
      calls++;
      const n = Math.min(max, length, left);
      left -= n;
      if (n === 0) return 0;
      return (await handle.write(buf, offset, n, position)).bytesWritten;
    },
  };
}

describe('all-or-nothing writes (short writes never count as success)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-writeall-'));
  });
  afterEach(async () => {
    setWriteImplForTests(undefined);
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writeAll loops over partial writes until every byte is out', async () => {
    const w = shortWrites(7);
    setWriteImplForTests(w.fn);
    const handle = await fs.open(path.join(dir, 'f'), 'w');
    const data = 'x'.repeat(100) + 'é';
    expect(await writeAll(handle, data, 0)).toBe(Buffer.byteLength(data));
    await handle.close();
    expect(await fs.readFile(path.join(dir, 'f'), 'utf8')).toBe(data);
    expect(w.calls()).toBeGreaterThan(10);
  });

  it('appendAll cuts a failed append back to the old length and says which file (storage_error)', async () => {
    const file = path.join(dir, 'log.ndjson');
    await fs.writeFile(file, '{"a":1}\n');
    setWriteImplForTests(shortWrites(5, 12).fn); // 12 bytes reach the disk, then no space
    const err = await appendAll(file, '{"b":2}\n{"c":3}\n').catch((e) => e);
    expect(isWorkgraphError(err) && err.code).toBe('storage_error');
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/no space left/);
    expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}\n');
    setWriteImplForTests(undefined);
    await appendAll(file, '{"d":4}\n');
    expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}\n{"d":4}\n');
  });

  it('appendAll starts on a fresh line after a torn last line', async () => {
    const file = path.join(dir, 'torn.ndjson');
    await fs.writeFile(file, '{"a":1}\n{"b":');
    await appendAll(file, '{"c":3}\n', { ensureNewline: true });
    expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}\n{"b":\n{"c":3}\n');
  });

  it('writeFileAtomic never renames a short temp file over the original, and leaves no temp file', async () => {
    const file = path.join(dir, 'doc.json');
    await fs.writeFile(file, 'old content');
    setWriteImplForTests(shortWrites(3, 10).fn);
    const err = await writeFileAtomic(file, 'new content that does not fit').catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toContain(file);
    expect(await fs.readFile(file, 'utf8')).toBe('old content');
    expect((await fs.readdir(dir)).sort()).toEqual(['doc.json']);
  });

  it('names the file and the cause for EISDIR', async () => {
    const folder = path.join(dir, 'is-a-folder');
    await fs.mkdir(folder);
    const err = await appendAll(folder, 'x\n').catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toContain(folder);
    expect(err.message).toMatch(/folder where a file was expected/);
  });

  it('appendLines always starts on a fresh line (no option to forget) and reports the lengths', async () => {
    const file = path.join(dir, 'index.ndjson');
    await fs.writeFile(file, '{"a":1}\n{"s":{"sessionId":"0000');
    const r = await appendLines(file, '{"b":2}\n');
    expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}\n{"s":{"sessionId":"0000\n{"b":2}\n');
    expect(r.after - r.before).toBe(Buffer.byteLength('\n{"b":2}\n'));
    // A clean end gets no extra newline; an empty file neither.
    await appendLines(file, '{"c":3}\n');
    expect((await fs.readFile(file, 'utf8')).endsWith('{"b":2}\n{"c":3}\n')).toBe(true);
    const fresh = path.join(dir, 'fresh.ndjson');
    await appendLines(fresh, '{"x":1}\n');
    expect(await fs.readFile(fresh, 'utf8')).toBe('{"x":1}\n');
    await expect(appendLines(fresh, '{"no newline":1}')).rejects.toThrow(/must end with a newline/);
  });

  it('appendFully calls whileSyncing once, with every byte written and the lengths, before it answers; a short write never calls it', async () => {
    const file = path.join(dir, 'g.ndjson');
    await fs.writeFile(file, '{"a":1}');
    const seen: Array<{ before: number; after: number; size: number; answered: boolean; sameFile: boolean }> = [];
    let answered = false;
    const done = appendFully(file, '{"b":2}\n', { ensureNewline: true, whileSyncing: (w) => seen.push({ before: w.before, after: w.after, size: fsSync.statSync(file).size, answered, sameFile: w.ino === fsSync.statSync(file).ino && w.mtimeMs === fsSync.statSync(file).mtimeMs }) }).then((r) => {
      answered = true;
      return r;
    });
    const r = await done;
    // The identity it is given is the file's as the write left it (inode, mtime).
    expect(seen).toEqual([{ before: 7, after: 16, size: 16, answered: false, sameFile: true }]);
    expect([r.before, r.after]).toEqual([7, 16]);
    setWriteImplForTests(shortWrites(3, 5).fn);
    let called = 0;
    await expect(appendFully(file, '{"c":3}\n', { whileSyncing: () => called++ })).rejects.toThrow(/g\.ndjson/);
    expect(called).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
  });

  it('appendFully awaits the promise whileSyncing returns (work beside the fsync) before it answers, with the fsync settled first', async () => {
    const file = path.join(dir, 'g.ndjson');
    const order: string[] = [];
    const r = await appendFully(file, '{"a":1}\n', {
      whileSyncing: (_w, synced) =>
        (async () => {
          await synced;
          order.push('synced');
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push('work done');
        })(),
    }).then((x) => (order.push('answered'), x));
    expect(order).toEqual(['synced', 'work done', 'answered']);
    expect(r.after).toBe(8);
  });

  it('appendLines under short writes: the torn-line fix and the append are cut back together', async () => {
    const file = path.join(dir, 'log.ndjson');
    await fs.writeFile(file, '{"a":1}\n{"b":');
    setWriteImplForTests(shortWrites(4, 6).fn);
    const err = await appendLines(file, '{"c":3}\n').catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}\n{"b":');
  });

  it('truncateFile cuts back and names the file when it cannot', async () => {
    const file = path.join(dir, 't.log');
    await fs.writeFile(file, 'abcdef');
    await truncateFile(file, 2);
    expect(await fs.readFile(file, 'utf8')).toBe('ab');
    const err = await truncateFile(path.join(dir, 'missing.log'), 0).catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toContain('missing.log');
  });

  it('writeFileIfAbsent keeps the first content; copyFileExclusive refuses an existing target', async () => {
    const file = path.join(dir, 'key');
    expect(await writeFileIfAbsent(file, 'first', { mode: 0o600 })).toBe(true);
    expect(await writeFileIfAbsent(file, 'second')).toBe(false);
    expect(await fs.readFile(file, 'utf8')).toBe('first');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    await copyFileExclusive(file, path.join(dir, 'copy'));
    expect(await fs.readFile(path.join(dir, 'copy'), 'utf8')).toBe('first');
    await expect(copyFileExclusive(file, path.join(dir, 'copy'))).rejects.toMatchObject({ code: 'EEXIST' });
    expect((await fs.readdir(dir)).sort()).toEqual(['copy', 'key']);
  });

  it('writeRecordInPlace creates the record, rewrites it in place (same inode) cut to its length, and names the file when it cannot', async () => {
    const file = path.join(dir, 'tail.json');
    writeRecordInPlace(file, Buffer.from('a long first record\n'));
    const ino = (await fs.stat(file)).ino;
    writeRecordInPlace(file, Buffer.from('short\n'));
    expect(await fs.readFile(file, 'utf8')).toBe('short\n');
    expect((await fs.stat(file)).ino).toBe(ino);
    expect((await fs.readdir(dir)).sort()).toEqual(['tail.json']);
    let err: unknown;
    try {
      writeRecordInPlace(path.join(dir, 'missing', 'tail.json'), Buffer.from('x'));
    } catch (e) {
      err = e;
    }
    expect(isWorkgraphError(err) && err.code === 'storage_error').toBe(true);
    expect((err as Error).message).toContain(path.join(dir, 'missing', 'tail.json'));
  });
});
