import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { StorageError } from '../../../../src/kernel/errors';
import { LockedDocument, type DocumentCodec } from '../../../../src/kernel/files/locked-document';

const run = promisify(execFile);

interface Counter {
  count: number;
  by: number[];
}

const codec: DocumentCodec<Counter> = {
  parse(text, file) {
    try {
      return JSON.parse(text) as Counter;
    } catch {
      throw new StorageError(`counter ${file} is damaged`, { file, damaged: true });
    }
  },
  serialize: (doc) => JSON.stringify(doc),
};

/** The kernel's locked document with compare-and-swap, on real files (and real processes for the races). */
describe('LockedDocument', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-doc-'));
    file = path.join(dir, 'counter.json');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const increment = (doc: LockedDocument<Counter>) =>
    doc.swap('count in', (cur) => ({ next: { count: (cur?.count ?? 0) + 1, by: [...(cur?.by ?? []), 0] }, value: (cur?.count ?? 0) + 1 }));

  it('reads nothing before the first write, then the revision written; a swap without a next revision writes nothing', async () => {
    const doc = new LockedDocument(file, dir, codec);
    expect(await doc.read()).toBeUndefined();
    expect(await increment(doc)).toBe(1);
    expect(await doc.read()).toEqual({ count: 1, by: [0] });
    const before = await fs.stat(file);
    expect(await doc.swap('look at', (cur) => ({ value: cur?.count }))).toBe(1);
    expect((await fs.stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect(await fs.readdir(dir)).toEqual(['counter.json']);
  });

  it('serializes concurrent swaps in one process: every increment is decided on the one before it', async () => {
    const doc = new LockedDocument(file, dir, codec);
    const values = await Promise.all(Array.from({ length: 12 }, () => increment(doc)));
    expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect((await doc.read())?.count).toBe(12);
  });

  it('serializes swaps across processes: three processes × 15 increments give 45, none lost', async () => {
    const counter = path.join(__dirname, 'locked-document-counter.js');
    const outs = await Promise.all([0, 1, 2].map(() => run(process.execPath, [counter, file, '15'], { timeout: 120_000 })));
    for (const o of outs) expect(JSON.parse(o.stdout)).toEqual({ ok: true });
    const final = JSON.parse(await fs.readFile(file, 'utf8')) as Counter;
    expect(final.count).toBe(45);
    expect(new Set(final.by).size).toBe(3);
  }, 180_000);

  it('a failed write changes nothing and names the file; an exception in decide writes nothing', async () => {
    const doc = new LockedDocument(file, dir, codec, { name: 'the counter' });
    await increment(doc);
    await expect(doc.swap('count in', () => Promise.reject(new Error('decided against it')))).rejects.toThrow(/decided against it/);
    expect(await doc.read()).toEqual({ count: 1, by: [0] });
    // The document's path taken by a folder with a file in it while the change is decided: the rename fails.
    const err = await doc
      .swap('count in', async (cur) => {
        await fs.rm(file);
        await fs.mkdir(file);
        await fs.writeFile(path.join(file, 'keep'), 'x');
        return { next: { count: (cur?.count ?? 0) + 1, by: [] }, value: undefined };
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect(err.message).toContain(file);
    expect(err.message).toContain('EISDIR');
    expect(await fs.readFile(path.join(file, 'keep'), 'utf8')).toBe('x');
    // No temp file is left behind, and the lock is released.
    expect(await fs.readdir(dir)).toEqual(['counter.json']);
  });

  it('a damaged document fails the swap with its error, unless recover deals with it', async () => {
    await fs.writeFile(file, '{"count": 3, "by"');
    const doc = new LockedDocument(file, dir, codec);
    await expect(increment(doc)).rejects.toMatchObject({ code: 'storage_error', details: { damaged: true } });
    expect(await fs.readFile(file, 'utf8')).toBe('{"count": 3, "by"');
    const aside = `${file}.damaged`;
    const value = await doc.swap(
      'count in',
      (cur) => ({ next: { count: (cur?.count ?? 0) + 1, by: [] }, value: cur }),
      { recover: async () => (await fs.rename(file, aside), true) },
    );
    expect(value).toBeUndefined();
    expect(await doc.read()).toEqual({ count: 1, by: [] });
    expect(await fs.readFile(aside, 'utf8')).toBe('{"count": 3, "by"');
  });

  it('commit writes a second file first and the document last; a failed document write lets it undo', async () => {
    const side = path.join(dir, 'side.log');
    const doc = new LockedDocument(file, dir, codec);
    await doc.swap('count in', () => ({ next: { count: 1, by: [] }, value: undefined }), {
      commit: async (next, _cur, write) => {
        await fs.appendFile(side, 'one\n');
        await write(next);
      },
    });
    expect(await fs.readFile(side, 'utf8')).toBe('one\n');
    const failing = new LockedDocument(file, dir, { ...codec, serialize: () => { throw new Error('cannot serialize'); } });
    const err = await failing
      .swap('count in', () => ({ next: { count: 2, by: [] }, value: undefined }), {
        commit: async (next, _cur, write) => {
          await fs.appendFile(side, 'two\n');
          await write(next).catch(async (e) => {
            await fs.writeFile(side, 'one\n');
            throw e;
          });
        },
      })
      .catch((e) => e);
    expect(err.message).toMatch(/cannot serialize/);
    expect(await fs.readFile(side, 'utf8')).toBe('one\n');
    expect(await doc.read()).toEqual({ count: 1, by: [] });
  });
});
