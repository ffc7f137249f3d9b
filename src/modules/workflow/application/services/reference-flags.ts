import type { Workflow } from '../../domain/types';
import { referenceWarnings, type CheckedReference } from '../../domain/current-format/references';
import type { ReferenceChecker } from '../ports/reference-checker';

/** What workflow_get (and workflow_start) add for a current-format workflow with `references`. */
export interface ReferenceFlags {
  /** One per reference: its resolved path and whether it exists (absent when its base is unknown). Never its content. */
  referenceStatus?: Omit<CheckedReference, 'pointer'>[];
  /** One line per missing reference. */
  warnings?: string[];
}

/**
 * Resolves a current-format workflow's references — `package` ones against the folder of its file, `workspace` ones
 * against `workspace` — and flags the missing ones. Nothing for classic workflows or without a checker.
 */
export async function flagReferences(
  checker: ReferenceChecker | undefined,
  workflow: Workflow,
  file: string | undefined,
  workspace: string | undefined,
): Promise<ReferenceFlags> {
  if (!checker || workflow.format !== 'current' || !Array.isArray(workflow.references)) return {};
  const statuses = await checker.check(workflow.references, { file, workspace });
  const warnings = referenceWarnings(statuses).map((w) => w.message);
  return {
    referenceStatus: statuses.map(({ pointer: _pointer, ...rest }) => rest),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
