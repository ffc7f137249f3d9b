import type { Workflow, WorkflowSummary } from '../../domain/types';

/** A workflow file that could not be loaded: reported apart from the valid ones, never silently dropped. */
export interface InvalidWorkflowEntry {
  /** The id the file declares, or the file name without `.json` when it has none. */
  id: string;
  file: string;
  source: string;
  reason: string;
}

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
}
