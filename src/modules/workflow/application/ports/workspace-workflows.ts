import type { WorkflowStorage } from './workflow-storage';

/** The sub-folders of a workspace whose workflow files are served to the sessions working there (source `workspace`). */
export const WORKSPACE_WORKFLOW_FOLDERS = ['.workrail/workflows', '.workgraph/workflows'] as const;

/** The source label of a workspace's own workflows. */
export const WORKSPACE_SOURCE = 'workspace';

/**
 * The workflows a caller working in one folder sees: every configured source (bundled, project, env, flag), then the
 * folder's `.workrail/workflows` and `.workgraph/workflows`, which override the others by id.
 */
export interface WorkspaceWorkflowCatalogs {
  /**
   * @param folder a workspace already checked to be in the caller's reach (symlinks are followed).
   * @throws the file system's error when the folder cannot be resolved (it vanished).
   */
  forWorkspace(folder: string): Promise<WorkflowStorage>;
  /** Whether the folder has a workflow folder of its own (to say that it was not read, only when there is one). */
  hasOwnWorkflows(folder: string): Promise<boolean>;
}
