import { SchemaRegistry } from '../../kernel/schema-registry';
import { WorkflowDocumentChecker } from './application/services/workflow-document-checker';
import { ValidateWorkflowJson } from './application/use-cases/validate-workflow-json';
import { loadWorkflowSchema } from './infrastructure/workflow-schema-file';
import { FileReferenceChecker } from './infrastructure/file-reference-checker';

/**
 * What code outside the workflow module uses at run time besides the container, loaded on demand through
 * `workflowRuntime()` in index.ts (Ajv and the schema stay out of cold start).
 */

/**
 * A `workflow_validate_json` checker over the real schema and structure checks, without a container (the CLI): the
 * caller passes where routines are looked up and where references resolve.
 */
export function createWorkflowJsonValidator(): ValidateWorkflowJson {
  return new ValidateWorkflowJson(new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()), undefined, new FileReferenceChecker());
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
