import type { Workflow, WorkflowSummary } from '../../domain/types';

/** A workflow file that could not be loaded: reported apart from the valid ones, never silently dropped. */
export interface InvalidWorkflowEntry {
  /** The id the file declares, or the file name without `.json` when it has none. */
  id: string;
  file: string;
  source: string;
  reason: string;
}

/** A workflow with where it came from. */
export interface LocatedWorkflow {
  workflow: Workflow;
  /** Source label (`bundled`, `project`, `env`, `flag`, `workspace`, `memory`). */
  source: string;
  /** The file it was read from, when it came from a file (`package` references resolve against its folder). */
  file?: string;
  /** The workflow of the same id from an earlier source that this one replaces. */
  shadows?: { source: string; file?: string };
}

/** A workflow document as its file gives it (before compilation), by id: where templateCall routines are found. */
export type WorkflowDocumentLookup = (id: string) => Record<string, unknown> | undefined;

export interface WorkflowListing {
  workflows: WorkflowSummary[];
  invalid: InvalidWorkflowEntry[];
}

/**
 * Where workflows come from. Implementations are decorators over this one port, composed in the container:
 * Caching(SchemaValidating(MultiSource([File, File, ...]))).
 */
export interface WorkflowStorage {
  /** Every workflow available, plus the files that failed to load. */
  list(): Promise<WorkflowListing>;
  /**
   * The workflow with this id.
   * @throws NotFoundError when no source has it; InvalidWorkflowError when its file is invalid (with the reason);
   *   UnsafePathError for ids with `..`, separators, NUL bytes.
   */
  get(id: string): Promise<Workflow>;
  /** `get`, plus the source and file it came from. Same errors as `get`. */
  locate(id: string): Promise<LocatedWorkflow>;
  /**
   * The loaded workflow documents as their files give them (current-format files uncompiled), by id: what
   * templateCall routines are expanded from, so a workflow checked on its own sees the same routines the server uses.
   */
  documents(): Promise<WorkflowDocumentLookup>;
}
