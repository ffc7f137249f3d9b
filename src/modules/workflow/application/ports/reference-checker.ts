import type { CheckedReference } from '../../domain/current-format/references';

/** Where a workflow's references resolve: `package` ones against the folder of `file`, `workspace` ones against `workspace`. */
export interface ReferenceBases {
  /** The workflow's file; unknown for a workflow given as text. */
  file?: string;
  /** The agent's workspace: a session's workspacePath, else the first client root (the CLI: the current folder). */
  workspace?: string;
}

/** What became of one reference (only existence is looked at: content is never read or inlined). */
export type ReferenceStatus = CheckedReference;

/** Resolves a workflow's `references` and checks that each exists (the file system behind a port: domain has no I/O). */
export interface ReferenceChecker {
  check(references: unknown, bases: ReferenceBases): Promise<ReferenceStatus[]>;
}
