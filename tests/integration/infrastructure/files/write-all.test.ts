import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendAll, setWriteImplForTests, writeAll, writeFileAtomic, type WriteFn } from '../../../../src/kernel/files/atomic-write';
import { isWorkgraphError } from '../../../../src/kernel/errors';

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
});
