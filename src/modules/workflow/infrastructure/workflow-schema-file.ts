import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../../../kernel/config/package-root';

let cached: Record<string, unknown> | undefined;

/** spec/workflow.schema.json, located from the package root so it is found from both src/ (tests) and dist/ (built). */
export function workflowSchemaPath(): string {
  return path.join(packageRoot(), 'spec', 'workflow.schema.json');
}

/** The parsed workflow JSON Schema, read once per process (on first use, to keep cold start cheap). */
export function loadWorkflowSchema(): Record<string, unknown> {
  if (!cached) cached = JSON.parse(fs.readFileSync(workflowSchemaPath(), 'utf8')) as Record<string, unknown>;
  return cached;
}
