/** A workflow reference after resolution (the ReferenceChecker port answers these). */
export interface CheckedReference {
  /** JSON pointer of the reference's `source` in the workflow file. */
  pointer: string;
  id: string;
  resolveFrom: 'package' | 'workspace';
  /** The absolute path it resolves to; absent when its base is unknown. */
  path?: string;
  /** true: the file exists; false: it does not; absent: not checked (its base is unknown). */
  found?: boolean;
}

/** One warning per reference that does not exist (one whose base is unknown was not checked, so is not flagged). */
export function referenceWarnings(statuses: readonly CheckedReference[]): { pointer: string; message: string }[] {
  return statuses
    .filter((s) => s.found === false)
    .map((s) => ({ pointer: s.pointer, message: `reference '${s.id}' (${s.resolveFrom}) not found: ${s.path}` }));
}
