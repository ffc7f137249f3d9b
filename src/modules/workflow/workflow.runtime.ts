import { SchemaRegistry } from '../../kernel/schema-registry';
import { WorkflowDocumentChecker } from './application/services/workflow-document-checker';
import { ValidateWorkflowJson } from './application/use-cases/validate-workflow-json';
import { loadWorkflowSchema } from './infrastructure/workflow-schema-file';

/**
 * What code outside the workflow module uses at run time besides the container, loaded on demand through
 * `workflowRuntime()` in index.ts (Ajv and the schema stay out of cold start).
 */

/** A `workflow_validate_json` checker over the real schema and structure checks, without a container (the CLI). */
export function createWorkflowJsonValidator(): ValidateWorkflowJson {
  return new ValidateWorkflowJson(new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()));
}

/**
 * The workflows `workgraph validate` looks templateCall routines up in: the files being validated, every workflow
 * file under their folders (recursively, as the server reads a folder) and the bundled workflows. Unreadable or
 * non-JSON files are skipped here (they are reported as problems of their own when validated).
 */
export async function routineLookupFor(files: readonly string[]): Promise<(id: string) => Record<string, unknown> | undefined> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const { listWorkflowFiles } = await import('./infrastructure/file-workflow-storage');
  const { packageRoot } = await import('../../kernel/config/package-root');
  const byId = new Map<string, Record<string, unknown>>();
  const read = async (file: string) => {
    try {
      const value = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
      if (value && typeof value === 'object' && typeof value.id === 'string' && !byId.has(value.id)) byId.set(value.id, value);
    } catch {
      // reported when the file itself is validated
    }
  };
  for (const f of files) await read(f);
  const folders = new Set([...files.map((f) => path.dirname(path.resolve(f))), path.join(packageRoot(), 'workflows')]);
  for (const dir of folders) {
    let names: string[] = [];
    try {
      names = await listWorkflowFiles(dir);
    } catch {
      continue;
    }
    for (const n of names) await read(path.join(dir, n));
  }
  return (id) => byId.get(id);
}

/**
 * The references of a current-format workflow that cannot be found: `package` ones against the workflow's folder,
 * `workspace` ones (the default) against `workspace`. Content is never read, only existence.
 */
export async function missingReferences(
  doc: unknown,
  file: string,
  workspace: string,
): Promise<{ pointer: string; message: string }[]> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const refs = (doc as { references?: unknown })?.references;
  if (!Array.isArray(refs)) return [];
  const out: { pointer: string; message: string }[] = [];
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i] as { source?: unknown; resolveFrom?: unknown; id?: unknown };
    if (typeof ref?.source !== 'string') continue;
    const base = ref.resolveFrom === 'package' ? path.dirname(path.resolve(file)) : workspace;
    const full = path.resolve(base, ref.source);
    try {
      await fs.access(full);
    } catch {
      out.push({ pointer: `/references/${i}/source`, message: `reference '${String(ref.id)}' (${String(ref.resolveFrom ?? 'workspace')}) not found: ${full}` });
    }
  }
  return out;
}

/** `workgraph db import/export`: the session-token key copied between a data dir and the database. */
export async function copySessionTokenKey(...args: Parameters<typeof import('./infrastructure/postgres/token-key-copy').copySessionTokenKey>) {
  const { copySessionTokenKey: copy } = await import('./infrastructure/postgres/token-key-copy');
  return copy(...args);
}
