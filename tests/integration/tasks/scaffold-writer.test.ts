import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsScaffoldFileWriter } from '../../../src/modules/tasks/infrastructure/fs-scaffold-file-writer';

/**
 * scaffold_project_docs' writer on the real file system: a folder swapped for a symlink between the checks and the
 * writes (through the writer's test seams, at each step where a racing process could do it) never gets a file written
 * outside the target directory, and the scaffold is all or nothing — a failure at any point leaves no file, temporary
 * file or folder this call created, and files it was replacing keep their old content.
 */

/** Every entry under `dir` (relative paths, folders with a trailing /), not following symlinks. */
function tree(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(`${e.name}/`, ...tree(path.join(dir, e.name)).map((r) => `${e.name}/${r}`));
    else out.push(e.isSymbolicLink() ? `${e.name}@` : e.name);
  }
  return out.sort();
}

describe('FsScaffoldFileWriter', () => {
  let root: string;
  let target: string;
  let outside: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wg-scaffold-')));
    target = path.join(root, 'target');
    outside = path.join(root, 'outside');
    fs.mkdirSync(target);
    fs.mkdirSync(outside);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const files = [
    { relativePath: 'ARCHITECTURE.md', content: 'arch', field: 'architectureContent' },
    { relativePath: 'phases/phase-1.md', content: 'one', field: 'phaseTasks[0].fileName' },
    { relativePath: 'phases/phase-2.md', content: 'two', field: 'phaseTasks[1].fileName' },
    { relativePath: 'TEST_CASES.md', content: 'tests', field: 'testCasesContent' },
  ];

  /** Replaces `target/phases` with a symlink to the outside folder. */
  const swapPhasesForLink = () => {
    fs.rmSync(path.join(target, 'phases'), { recursive: true, force: true });
    fs.symlinkSync(outside, path.join(target, 'phases'));
  };

  it('writes every file, creating folders', async () => {
    const written = await new FsScaffoldFileWriter().writeAll(target, files, { overwrite: false });
    expect(written).toEqual(files.map((f) => path.join(target, f.relativePath)));
    expect(tree(target)).toEqual(['ARCHITECTURE.md', 'TEST_CASES.md', 'phases/', 'phases/phase-1.md', 'phases/phase-2.md']);
    expect(fs.readFileSync(path.join(target, 'phases/phase-2.md'), 'utf8')).toBe('two');
  });

  it('creates a target folder that does not exist yet, with its missing parents', async () => {
    const fresh = path.join(target, 'new', 'deeper');
    const written = await new FsScaffoldFileWriter().writeAll(fresh, files, { overwrite: false });
    expect(written).toEqual(files.map((f) => path.join(fresh, f.relativePath)));
    expect(tree(target)).toEqual(['new/', 'new/deeper/', ...tree(fresh).map((r) => `new/deeper/${r}`)].sort());
    expect(tree(fresh)).toEqual(['ARCHITECTURE.md', 'TEST_CASES.md', 'phases/', 'phases/phase-1.md', 'phases/phase-2.md']);
  });

  it.each(['beforeStage', 'beforeCommit'] as const)('a folder swapped for a symlink out (%s) writes nothing outside and leaves nothing', async (step) => {
    let swapped = false;
    const writer = new FsScaffoldFileWriter({
      [step]: (t: string) => {
        if (!swapped && t.endsWith('phase-1.md')) {
          swapped = true;
          swapPhasesForLink();
        }
      },
    });
    await expect(writer.writeAll(target, files, { overwrite: false })).rejects.toMatchObject({ code: 'unsafe_path', message: expect.stringContaining('phases/phase-1.md') });
    expect(swapped).toBe(true);
    expect(tree(outside)).toEqual([]);
    // All or nothing: only the attacker's link is left, none of this call's files, temporaries or folders.
    expect(tree(target)).toEqual(['phases@']);
  });

  it('a parent folder swapped for a symlink out while nested folders are created makes no folder outside', async () => {
    const nested = [{ relativePath: 'docs/phases/deep/phase-1.md', content: 'one', field: 'phaseTasks[0].fileName' }];
    let swapped = false;
    const writer = new FsScaffoldFileWriter({
      afterMkdir: (dir: string) => {
        if (!swapped && dir === path.join(target, 'docs')) {
          swapped = true;
          // The attacker moves the new folder away and puts a link to the outside in its place.
          fs.renameSync(path.join(target, 'docs'), path.join(root, 'moved'));
          fs.symlinkSync(outside, path.join(target, 'docs'));
        }
      },
    });
    await expect(writer.writeAll(target, nested, { overwrite: false })).rejects.toMatchObject({ code: 'unsafe_path', message: expect.stringContaining('docs/phases/deep/phase-1.md') });
    expect(swapped).toBe(true);
    expect(tree(outside)).toEqual([]);
    // Only the attacker's link is left in the target.
    expect(tree(target)).toEqual(['docs@']);
  });

  it('a tight loop swapping a parent folder while nested folders are created never makes anything outside', async () => {
    const nested = [
      { relativePath: 'a/b/c/one.md', content: 'one', field: 'f1' },
      { relativePath: 'a/b/d/two.md', content: 'two', field: 'f2' },
    ];
    const writer = new FsScaffoldFileWriter();
    let stop = false;
    const swapper = (async () => {
      while (!stop) {
        try {
          fs.rmSync(path.join(target, 'a'), { recursive: true, force: true });
          fs.symlinkSync(outside, path.join(target, 'a'));
          await new Promise((r) => setImmediate(r));
          fs.rmSync(path.join(target, 'a'), { force: true });
        } catch {
          // the writer created it again meanwhile
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 40; i++) {
      await writer.writeAll(target, nested, { overwrite: true }).catch(() => undefined);
    }
    stop = true;
    await swapper;
    expect(tree(outside)).toEqual([]);
  });

  it('a tight loop swapping the folder during many calls never gets a file outside', async () => {
    const writer = new FsScaffoldFileWriter();
    let stop = false;
    const swapper = (async () => {
      while (!stop) {
        try {
          swapPhasesForLink();
          await new Promise((r) => setImmediate(r));
          fs.rmSync(path.join(target, 'phases'), { force: true });
          fs.mkdirSync(path.join(target, 'phases'), { recursive: true });
        } catch {
          // the writer holds it for a moment
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 40; i++) {
      await writer.writeAll(target, files, { overwrite: true }).catch(() => undefined);
    }
    stop = true;
    await swapper;
    expect(tree(outside)).toEqual([]);
    for (const name of tree(target)) expect(name).not.toMatch(/\.tmp/);
  });

  it('a failure midway removes what the call created and restores replaced files', async () => {
    fs.writeFileSync(path.join(target, 'ARCHITECTURE.md'), 'old architecture');
    const writer = new FsScaffoldFileWriter({
      beforeCommit: (t: string) => {
        if (t.endsWith('TEST_CASES.md')) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      },
    });
    await expect(writer.writeAll(target, files, { overwrite: true })).rejects.toMatchObject({
      code: 'storage_error',
      message: expect.stringContaining('nothing was written'),
    });
    expect(tree(target)).toEqual(['ARCHITECTURE.md']);
    expect(fs.readFileSync(path.join(target, 'ARCHITECTURE.md'), 'utf8')).toBe('old architecture');
  });

  it('a file that appears after the checks is not replaced without overwrite, and nothing is left', async () => {
    const writer = new FsScaffoldFileWriter({
      beforeCommit: (t: string) => {
        if (t.endsWith('TEST_CASES.md')) fs.symlinkSync(path.join(outside, 'planted'), path.join(target, 'TEST_CASES.md'));
      },
    });
    await expect(writer.writeAll(target, files, { overwrite: false })).rejects.toMatchObject({ code: 'already_exists' });
    expect(tree(target)).toEqual(['TEST_CASES.md@']);
    expect(tree(outside)).toEqual([]);
  });
});
