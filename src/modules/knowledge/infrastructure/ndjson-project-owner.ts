import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { projectIdentity } from '../domain/project-from-context';
import { StorageError } from '../../../kernel/errors';
import { errnoCode, toStorageError } from '../../../kernel/files/storage-errors';
import type { KnowledgePaths } from './knowledge-files';
import { forEachLineBackward } from './line-reader';
import { parseNode, readIo } from './ndjson-passes';
import { OWNER_FILE } from './ndjson-project-copy';

export { OWNER_FILE };

/** The file naming who owns a project's plain id. */
export function ownerFile(paths: KnowledgePaths): string {
  return path.join(paths.dir, OWNER_FILE);
}

/** Whether a folder's context must take the alternative id: the plain id is another folder's, or an identity's. */
export function takenFromFolder(owner: { pathKey: string | null; identity: string | null }, pathKey: string): boolean {
  return owner.identity !== null || (owner.pathKey !== null && owner.pathKey !== pathKey);
}

/**
 * Who owns a project's plain id: the owner file when there is one (`recorded`: `{"pathKey": …}` for a folder,
 * `{"identity": …}` for a bare-name project's creator), else — data written before owner files existed — the folder
 * of the newest node whose `projectContext` is a path (null when there is none: a new project, or one only ever named
 * by a bare name, which any folder of that name, or the first identity to write, may take).
 */
export async function readOwner(paths: KnowledgePaths): Promise<{ pathKey: string | null; identity: string | null; recorded: boolean }> {
  const file = ownerFile(paths);
  let text: string | undefined;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw toStorageError(e, 'read', file);
  }
  if (text !== undefined) {
    let parsed: { pathKey?: unknown; identity?: unknown } = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = {};
    }
    const { pathKey, identity } = parsed ?? {};
    if (typeof pathKey === 'string') return { pathKey, identity: null, recorded: true };
    if (typeof identity === 'string' && identity !== '') return { pathKey: null, identity, recorded: true };
    throw new StorageError(`${file} is not a valid owner file (expected {"pathKey": "<folder>"} or {"identity": "<name>"}); fix or remove it`, { file });
  }
  let found: string | null = null;
  await readIo(paths.graph, () =>
    forEachLineBackward(paths.graph, (line) => {
      const node = parseNode(line);
      if (!node || typeof node.projectContext !== 'string') return true;
      found = projectIdentity(node.projectContext).pathKey;
      return false;
    }),
  );
  return { pathKey: found, identity: null, recorded: false };
}
