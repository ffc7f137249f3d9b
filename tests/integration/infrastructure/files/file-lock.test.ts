import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { withFileLock } from '../../../../src/kernel/files/file-lock';

/** Permanent lock failures fail at once (one attempt), naming the lock and the cause; a future-dated lock is stale. */
describe('file lock: permanent failures are not retried', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-lock-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  async function lockError(target: string) {
    const started = Date.now();
    const err = await withFileLock(target, async () => 'ran').catch((e) => e);
    return { err, elapsed: Date.now() - started };
  }

  it('`.lock` being a file: lock_error naming it, one attempt, not retryable', async () => {
    await fs.writeFile(path.join(dir, '.lock'), 'not a folder');
    const { err, elapsed } = await lockError(dir);
    expect(err.code).toBe('lock_error');
    expect(err.message).toContain(path.join(dir, '.lock'));
    expect(err.message).toMatch(/is a file/);
    expect(err.message).toMatch(/not go away by retrying/);
    expect(err.details).toMatchObject({ retryable: false, attempts: 1 });
    expect(elapsed).toBeLessThan(20_000); // generous: the fix is one attempt; before it, ~52 s of retries
  });

  it('a `.lock` folder with files in it: lock_error naming it, one attempt', async () => {
    await fs.mkdir(path.join(dir, '.lock'));
    await fs.writeFile(path.join(dir, '.lock', 'junk'), '');
    const { err } = await lockError(dir);
    expect(err.code).toBe('lock_error');
    expect(err.message).toContain(path.join(dir, '.lock'));
    expect(err.message).toMatch(/holds files \(junk\)/);
    expect(err.details).toMatchObject({ retryable: false, attempts: 1 });
  });

  it('a folder that cannot be created (a file in the way): storage_error naming the folder and the cause, not retryable', async () => {
    await fs.writeFile(path.join(dir, 'blocker'), '');
    const { err } = await lockError(path.join(dir, 'blocker', 'project'));
    expect(err.code).toBe('storage_error');
    expect(err.message).toContain(`could not create the folder ${path.join(dir, 'blocker', 'project')}`);
    expect(err.message).toMatch(/a part of the path is a file where a folder was expected \(ENOTDIR\)/);
    expect(err.details.retryable).toBeUndefined();
  });

  it('a lock dated further in the future than the stale period is taken over', async () => {
    const lock = path.join(dir, '.lock');
    await fs.mkdir(lock);
    const future = new Date(Date.now() + 3_600_000);
    await fs.utimes(lock, future, future);
    await expect(withFileLock(dir, async () => 'ran')).resolves.toBe('ran');
  });

  it('a fresh lock held by someone else is waited for, then reported naming the lock as retryable', async () => {
    const lock = path.join(dir, '.lock');
    await fs.mkdir(lock);
    const err = await withFileLock(dir, async () => 'ran', { waitMs: 300 }).catch((e) => e);
    expect(err.code).toBe('lock_error');
    expect(err.message).toContain(lock);
    expect(err.details.retryable).toBe(true);
  });

  const root = process.getuid?.() === 0;
  (root ? it : it.skip)('a read-only file system: lock_error at once (root: a read-only tmpfs)', async () => {
    const mnt = path.join(dir, 'ro');
    await fs.mkdir(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    try {
      await fs.mkdir(path.join(mnt, 'project'));
      execFileSync('mount', ['-o', 'remount,ro', mnt]);
      const { err } = await lockError(path.join(mnt, 'project'));
      expect(err.code).toBe('lock_error');
      expect(err.message).toContain(path.join(mnt, 'project', '.lock'));
      expect(err.message).toMatch(/read-only file system/);
      expect(err.details).toMatchObject({ retryable: false, attempts: 1 });
    } finally {
      execFileSync('umount', [mnt]);
    }
  });

  (root ? it.skip : it)('permission denied: lock_error at once (non-root: a folder without write permission)', async () => {
    const project = path.join(dir, 'project');
    await fs.mkdir(project);
    await fs.chmod(project, 0o500);
    try {
      const { err } = await lockError(project);
      expect(err.code).toBe('lock_error');
      expect(err.message).toMatch(/permission denied/);
      expect(err.details).toMatchObject({ retryable: false, attempts: 1 });
    } finally {
      await fs.chmod(project, 0o700);
    }
  });
});
