import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Workflow } from '../../../../src/modules/workflow/domain/types';

/** A small valid workflow with the given id (and optional overrides). */
export function workflow(id: string, overrides: Partial<Workflow> = {}): Workflow {
  return {
    id,
    name: `Workflow ${id}`,
    description: `Does ${id}`,
    version: '1.0.0',
    steps: [{ id: 'first', title: 'First', prompt: 'Do the first thing' }],
    ...overrides,
  };
}

/** Creates a temp folder; `cleanup()` removes it. */
export async function tempDir(prefix = 'wg-storage-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function writeJson(dir: string, name: string, value: unknown): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, JSON.stringify(value, null, 2));
  return file;
}

export async function removeDirs(dirs: string[]): Promise<void> {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
}
