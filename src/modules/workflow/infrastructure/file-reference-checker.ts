import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ReferenceBases, ReferenceChecker, ReferenceStatus } from '../application/ports/reference-checker';

/** ReferenceChecker over the file system: `fs.access` on the resolved path, nothing read. */
export class FileReferenceChecker implements ReferenceChecker {
  async check(references: unknown, bases: ReferenceBases): Promise<ReferenceStatus[]> {
    if (!Array.isArray(references)) return [];
    const out: ReferenceStatus[] = [];
    for (let i = 0; i < references.length; i++) {
      const ref = references[i] as { id?: unknown; source?: unknown; resolveFrom?: unknown };
      if (typeof ref?.source !== 'string') continue;
      const resolveFrom = ref.resolveFrom === 'package' ? 'package' : 'workspace';
      const base = resolveFrom === 'package' ? bases.file && path.dirname(path.resolve(bases.file)) : bases.workspace;
      const status: ReferenceStatus = { pointer: `/references/${i}/source`, id: String(ref.id), resolveFrom };
      if (base !== undefined) {
        status.path = path.resolve(base, ref.source);
        status.found = await fs.access(status.path).then(
          () => true,
          () => false,
        );
      }
      out.push(status);
    }
    return out;
  }
}
