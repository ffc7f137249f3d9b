import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { Tokens } from '../../../../kernel/tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { PathNotAllowedError, type WorkgraphError } from '../../../../kernel/errors';
import type { PathPolicy } from '../../../../kernel/path-policy';
import type { LocatedWorkflow, WorkflowListing, WorkflowStorage } from '../ports/workflow-storage';
import { WORKSPACE_SOURCE, type WorkspaceWorkflowCatalogs } from '../ports/workspace-workflows';
import { workspaceOutOfReachNote, workspaceShadowsNote } from '../../domain/guidance';

/** The catalog a call sees, with the workspace it reads (a real path) and what the caller should be told. */
export interface CatalogInReach {
  storage: WorkflowStorage;
  /** The workspace whose own workflows are served (resolved, symlinks followed); absent when none is. */
  workspace?: string;
  warnings: string[];
}

/**
 * Which workflows a call sees (docs/writing-workflows.md "Workspace workflows"): the configured sources, plus — when
 * the call works in a folder the caller may reach (the allowed roots as narrowed by its MCP roots and its identity's
 * roots) — that folder's `.workrail/workflows` and `.workgraph/workflows`, source `workspace`.
 */
@injectable()
export class WorkspaceWorkflows {
  constructor(
    @inject(WorkflowTokens.WorkflowStorage) private readonly storage: WorkflowStorage,
    @inject(WorkflowTokens.WorkspaceCatalogs, { isOptional: true }) private readonly catalogs?: WorkspaceWorkflowCatalogs,
    @inject(Tokens.PathPolicy, { isOptional: true }) private readonly paths?: PathPolicy,
  ) {}

  /**
   * @param workspace the folder the call works in (absent: the configured sources only).
   * @param strict the caller named the folder to list it (workflow_list): a folder out of reach or missing is an error.
   *   Otherwise (a session's workspace) such a folder only means no workspace workflows; one out of reach that has a
   *   workflow folder is said in the warnings.
   * @throws PathNotAllowedError / InvalidArgumentsError naming `field`, when strict.
   */
  async catalogFor(workspace: string | undefined, ctx: CallContext | undefined, field: string, strict: boolean): Promise<CatalogInReach> {
    if (workspace === undefined || workspace === '' || !this.catalogs || !this.paths) return { storage: this.storage, warnings: [] };
    let real: string;
    try {
      real = await this.paths.resolveAllowedDirectory(workspace, field, { mustExist: true, clientRoots: ctx?.clientRoots, identity: ctx?.identity });
    } catch (e) {
      if (strict) throw e;
      const unread = e instanceof PathNotAllowedError && (await this.catalogs.hasOwnWorkflows(workspace));
      const warnings = unread ? [workspaceOutOfReachNote(workspace, (e as WorkgraphError).message)] : [];
      return { storage: this.storage, warnings };
    }
    return { storage: await this.catalogs.forWorkspace(real), workspace: real, warnings: [] };
  }

  /**
   * The storage a stateless call (workflow_next, workflow_validate, workflow_get) reads: with its workspacePath, else
   * the caller's first MCP root — the workspace a session started by the same client would get.
   */
  async storageFor(workspacePath: string | undefined, ctx: CallContext | undefined): Promise<CatalogInReach> {
    return this.catalogFor(await defaultWorkspace(workspacePath, ctx), ctx, 'workspacePath', false);
  }

  /** One warning per workspace workflow that replaces a workflow of the same id from another source. */
  static shadowWarnings(listing: WorkflowListing): string[] {
    return listing.workflows.filter((w) => w.source === WORKSPACE_SOURCE && w.shadows).map((w) => workspaceShadowsNote(w.id, w.shadows!));
  }

  /** The warning for one located workflow that is a workspace one replacing another source's. */
  static shadowWarning(located: LocatedWorkflow): string[] {
    return located.source === WORKSPACE_SOURCE && located.shadows ? [workspaceShadowsNote(located.workflow.id, located.shadows.source, located.file)] : [];
  }
}

/** The workspace a call names, else its client's first MCP root, else none. */
export async function defaultWorkspace(workspacePath: string | undefined, ctx: CallContext | undefined): Promise<string | undefined> {
  if (workspacePath) return workspacePath;
  return ctx?.clientRoots ? (await ctx.clientRoots().catch(() => undefined))?.[0] : undefined;
}
