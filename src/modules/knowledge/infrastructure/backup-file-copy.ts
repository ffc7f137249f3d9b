import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { KnowledgeBackupCopy } from '../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../domain/knowledge-node';
import { StorageError } from '../../../kernel/errors';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import { toStorageError } from '../../../kernel/files/storage-errors';
import { BACKUP_NAME, newestBackupFirst } from './backup-files';
import { forEachLine } from './line-reader';
import { parseNode, readIo } from './ndjson-passes';
import { makeDir } from '../../../kernel/files/make-dir';

/**
 * A project's backup files for `db import`, oldest first (by the UTC time and `-N` their names carry), each read strictly: a line
 * that is not a node fails the whole read with the file and line named, so a damaged backup is never copied in part.
 * `ignored` lists the other entries of the folder (the store does not list them as backups either).
 */
export async function readBackupFiles(backupDir: string): Promise<{ backups: KnowledgeBackupCopy[]; ignored: string[] }> {
  let names: string[];
  try {
    names = (await fs.readdir(backupDir)).sort((a, b) => newestBackupFirst(b, a));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { backups: [], ignored: [] };
    throw toStorageError(e, 'list', backupDir);
  }
  const backups: KnowledgeBackupCopy[] = [];
  const ignored: string[] = [];
  for (const name of names) {
    const file = path.join(backupDir, name);
    // Temp files of a write in progress (`.name.tmp-…`) are nobody's business; anything else unknown is said.
    if (!BACKUP_NAME.test(name)) {
      if (!name.startsWith('.')) ignored.push(file);
      continue;
    }
    const nodes: StoredKnowledgeNode[] = [];
    await readIo(file, () =>
      forEachLine(file, (text, _offset, lineNo) => {
        if (text === '') return;
        const node = parseNode(text);
        if (!node) {
          throw new StorageError(`${file} line ${lineNo}: not a knowledge node (expected one JSON node per line); fix or remove the backup and run again`, { file, line: lineNo });
        }
        nodes.push(node);
      }),
    );
    const takenAt = (await readIo(file, () => fs.stat(file))).mtime.toISOString();
    backups.push({ name, takenAt, nodes });
  }
  return { backups, ignored };
}

/**
 * Writes copied backups as files of `backupDir` (the caller holds the project lock): each one atomically under its
 * name, its modification time set to when it was taken — what listBackups answers. Names are checked first, so a bad
 * one writes nothing.
 */
export async function writeBackupFiles(backupDir: string, backups: readonly KnowledgeBackupCopy[]): Promise<void> {
  for (const b of backups) {
    if (!BACKUP_NAME.test(b.name) || Number.isNaN(Date.parse(b.takenAt))) {
      throw new StorageError(`backup '${b.name}' taken at '${b.takenAt}': expected a name knowledge_graph_YYYYMMDD-HHMMSS[-N].ndjson and an ISO time`, { name: b.name });
    }
  }
  if (backups.length) await makeDir(backupDir);
  for (const b of backups) {
    const file = path.join(backupDir, b.name);
    await writeFileAtomic(file, b.nodes.map((n) => JSON.stringify(n) + '\n').join(''));
    const at = new Date(b.takenAt);
    await fs.utimes(file, at, at).catch((e) => {
      throw toStorageError(e, 'write', file);
    });
  }
}
