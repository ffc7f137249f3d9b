import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeDir, makeDirSync } from '../../../../src/kernel/files/make-dir';
import { StorageError } from '../../../../src/kernel/errors';

/** makeDir: `mkdir -p` that always ends, and fails as a storage_error naming the folder. */
describe('makeDir', () => {
  let tmp: string;
  beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-mkdir-'))));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('creates every missing folder, and is fine with folders that exist', async () => {
    const deep = path.join(tmp, 'a', 'b', 'c');
    await makeDir(deep);
    expect(fs.statSync(deep).isDirectory()).toBe(true);
    await makeDir(deep);
    makeDirSync(path.join(deep, 'd'));
    expect(fs.statSync(path.join(deep, 'd')).isDirectory()).toBe(true);
  });

  it('concurrent callers on the same path all succeed', async () => {
    const deep = path.join(tmp, 'x', 'y', 'z');
    await Promise.all(Array.from({ length: 8 }, () => makeDir(deep)));
    expect(fs.statSync(deep).isDirectory()).toBe(true);
  });

  it('a file on the path is a storage_error naming the folder (ENOTDIR)', async () => {
    fs.writeFileSync(path.join(tmp, 'file'), 'x');
    const err = await makeDir(path.join(tmp, 'file', 'sub')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).message).toContain(path.join(tmp, 'file', 'sub'));
    expect((err as StorageError).details.errno).toBe('ENOTDIR');
    expect(() => makeDirSync(path.join(tmp, 'file'))).toThrow(StorageError);
  });

  (fs.existsSync('/proc/self') ? it : it.skip)('under /proc (ENOENT with the parent there) it fails instead of looping like Node 20 mkdir -p', async () => {
    const err = await makeDir('/proc/workgraph-nope/a/b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).details.errno).toBe('ENOENT');
    expect(() => makeDirSync('/proc/workgraph-nope')).toThrow(/could not create the folder \/proc\/workgraph-nope/);
  });
});
