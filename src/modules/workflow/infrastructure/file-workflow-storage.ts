import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { silentLogger, type Logger } from '../../../kernel/logger';
import type { InvalidWorkflowEntry } from '../application/ports/workflow-storage';
import { parseStrictJson } from '../../../kernel/json-text';
import { isWorkgraphError } from '../../../kernel/errors';
import type { Workflow } from '../domain/types';
import { assertSafeName, isInside } from '../../../kernel/files/safe-name';
import { SnapshotWorkflowCatalog, type CatalogSnapshot, type WorkflowEntry } from './workflow-catalog';

/** How a folder is read beyond its files. */
export interface FolderOptions {
  /** A missing folder is normal (a workspace without workflows): not worth a warning. Default false. */
  optional?: boolean;
  /**
   * The folder must resolve (symlinks followed) inside this one, else it is refused as one invalid entry: a workspace's
   * `.workrail/workflows` that is a link out of the workspace is not read.
   */
  confineTo?: string;
}

/** Files larger than this are reported as invalid instead of being read. Default 5 MiB. */
export const MAX_WORKFLOW_FILE_BYTES = 5 * 1024 * 1024;

/**
 * One folder's `*.json` files, read recursively as WorkRail lays its own folder out (`routines/`, `examples/loops/`…),
 * skipping dot-folders and `node_modules` (and symlinked folders, which could loop). A file that cannot be used — unreadable, not JSON, not an object, a
 * symlink resolving outside the folder, a second file declaring an id already taken in the folder — is reported in
 * `invalid` with its file and reason and logged once; it never hides the other files. Schema validation is the job of
 * SchemaValidatingWorkflowStorage.
 */
export class FileWorkflowStorage extends SnapshotWorkflowCatalog {
  private readonly logged = new Set<string>();
  private warnedMissing = false;

  /**
   * @param dir the folder.
   * @param source label reported by workflow_list (`bundled`, `project`, `env`, `flag`).
   */
  constructor(
    private readonly dir: string,
    private readonly source: string,
    private readonly logger: Logger = silentLogger,
    private readonly options: FolderOptions = {},
  ) {
    super();
  }

  folders(): string[] {
    return [this.dir];
  }


  async snapshot(): Promise<CatalogSnapshot> {
    let names: string[];
    let realDir: string;
    try {
      realDir = await fs.realpath(this.dir);
      names = await listWorkflowFiles(realDir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        if (!this.warnedMissing && !this.options.optional) {
          this.warnedMissing = true;
          this.logger.warn(`workflow folder ${this.dir} (${this.source}) does not exist or is not a folder; it is ignored`, {
            dir: this.dir,
          });
        }
        return { workflows: [], invalid: [] };
      }
      throw e;
    }
    this.warnedMissing = false;
    if (this.options.confineTo !== undefined && !isInside(this.options.confineTo, realDir)) {
      const bad = this.invalid(path.basename(this.dir), this.dir, `the folder resolves to ${realDir}, outside ${this.options.confineTo}; refused`);
      this.logOnce(bad);
      return { workflows: [], invalid: [bad] };
    }

    const results = await Promise.all(names.map((name) => this.load(realDir, name)));
    const snapshot: CatalogSnapshot = { workflows: [], invalid: [] };
    const fileOfId = new Map<string, string>();
    for (const r of results) {
      if ('reason' in r) {
        snapshot.invalid.push(r);
      } else {
        const earlier = fileOfId.get(r.workflow.id);
        if (earlier !== undefined) {
          snapshot.invalid.push(this.invalid(r.workflow.id, r.file!, `duplicate id '${r.workflow.id}': ${path.relative(this.dir, earlier)} in the same folder declares it too`));
        } else {
          fileOfId.set(r.workflow.id, r.file!);
          snapshot.workflows.push(r);
        }
      }
    }
    for (const bad of snapshot.invalid) this.logOnce(bad);
    return snapshot;
  }

  private async load(realDir: string, name: string): Promise<WorkflowEntry | InvalidWorkflowEntry> {
    const file = path.join(this.dir, name);
    const fallbackId = path.basename(name).replace(/\.json$/i, '');
    try {
      for (const segment of name.split('/')) assertSafeName(segment, 'file');
      const full = path.join(realDir, name);
      const link = await fs.lstat(full);
      if (link.isSymbolicLink()) {
        let target: string;
        try {
          target = await fs.realpath(full);
        } catch {
          return this.invalid(fallbackId, file, 'broken symlink');
        }
        if (!isInside(realDir, target)) return this.invalid(fallbackId, file, 'symlink resolves outside the workflow folder; refused');
      }
      const stat = link.isSymbolicLink() ? await fs.stat(full) : link;
      if (!stat.isFile()) return this.invalid(fallbackId, file, 'not a regular file');
      if (stat.size > MAX_WORKFLOW_FILE_BYTES) {
        return this.invalid(fallbackId, file, `larger than ${MAX_WORKFLOW_FILE_BYTES} bytes`);
      }
      const text = await fs.readFile(full, 'utf8');
      const parsed = parseStrictJson(text, 1);
      if (!parsed.ok) {
        const first = parsed.issues[0];
        return this.invalid(fallbackId, file, `invalid JSON at line ${first.line}, column ${first.column}: ${first.message}`);
      }
      const value = parsed.value;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return this.invalid(fallbackId, file, 'the top level must be a JSON object');
      }
      const declared = (value as { id?: unknown }).id;
      if (typeof declared !== 'string' || declared.length === 0) {
        return this.invalid(fallbackId, file, "missing 'id' (expected a string of lowercase letters, digits and '-')");
      }
      return { workflow: value as Workflow, source: this.source, file };
    } catch (e) {
      if (isWorkgraphError(e)) return this.invalid(fallbackId, file, e.message);
      const err = e as NodeJS.ErrnoException;
      return this.invalid(fallbackId, file, `cannot be read: ${err.code ?? err.message}`);
    }
  }

  private invalid(id: string, file: string, reason: string): InvalidWorkflowEntry {
    return { id, file, source: this.source, reason };
  }

  /** One stderr line per bad file and reason, not one per reload. */
  private logOnce(bad: InvalidWorkflowEntry): void {
    const key = `${bad.file}\0${bad.reason}`;
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.logger.warn(`skipping workflow file ${bad.file}: ${bad.reason}`, { file: bad.file, reason: bad.reason });
  }
}

/** Folders never read: dependencies and hidden folders (`.git`, editor state). */
function skippedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/**
 * The `*.json` files under `root` as sorted relative paths with `/` separators. Symlinked folders are not followed
 * (a link back up would loop); symlinked files are, and load() refuses those that resolve outside the folder.
 */
export async function listWorkflowFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    for (const entry of entries) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skippedFolder(entry.name)) await walk(relPath);
      } else if (entry.name.toLowerCase().endsWith('.json')) {
        out.push(relPath);
      }
    }
  };
  await walk('');
  return out.sort();
}
