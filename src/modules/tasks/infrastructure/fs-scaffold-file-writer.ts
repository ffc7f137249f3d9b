import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AlreadyExistsError, UnsafePathError } from '../../../kernel/errors';
import type { ScaffoldFile, ScaffoldFileWriter } from '../application/ports/scaffold-file-writer';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import { isInside, realpathOfNearestExisting, resolveInside } from '../../../kernel/files/safe-name';

/** Writes scaffolded docs with the shared path-safety helpers: every check passes before the first write. */
export class FsScaffoldFileWriter implements ScaffoldFileWriter {
  async writeAll(targetDirectory: string, files: readonly ScaffoldFile[], opts: { overwrite: boolean }): Promise<string[]> {
    const targets: string[] = [];
    const seen = new Map<string, string>();
    // The folder may not exist yet (it is created on write); its nearest existing ancestor anchors the symlink check.
    const realFolder = await realpathOfNearestExisting(targetDirectory);
    for (const f of files) {
      const full = resolveInside(targetDirectory, f.relativePath, f.field);
      if (!isInside(realFolder, await realpathOfNearestExisting(full))) {
        throw new UnsafePathError(f.relativePath, 'a symlink leads outside the target directory', f.field);
      }
      const other = seen.get(full);
      if (other) throw new UnsafePathError(f.relativePath, `names the same file as ${other}`, f.field);
      seen.set(full, f.field);
      if (!opts.overwrite && (await exists(full))) {
        throw new AlreadyExistsError('file', full, 'pass overwrite: true to replace it');
      }
      targets.push(full);
    }
    for (let i = 0; i < files.length; i++) {
      await fs.mkdir(path.dirname(targets[i]), { recursive: true });
      await writeFileAtomic(targets[i], files[i].content);
    }
    return targets;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
