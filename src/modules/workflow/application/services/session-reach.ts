import type { CallContext } from '../../../../kernel/call-context';
import { InvalidArgumentsError, NotFoundError, PathNotAllowedError } from '../../../../kernel/errors';
import { reachOf } from '../../../../kernel/reach';

/**
 * Which sessions a caller sees (docs/http.md "What an identity sees"): those whose `workspacePath` lies under its
 * roots. A caller confined to roots sees no session without a workspace, and starts none outside them.
 */
export function sessionVisible(session: { workspacePath?: string }, ctx: CallContext | undefined): boolean {
  return reachOf(ctx).covers(session.workspacePath);
}

/** @throws NotFoundError, exactly as for a session that does not exist, when the caller may not see it. */
export function requireSessionVisible(session: { sessionId: string; workspacePath?: string }, ctx: CallContext | undefined): void {
  if (!sessionVisible(session, ctx)) throw new NotFoundError('session', session.sessionId);
}

/**
 * A new session's workspace must lie under the caller's roots when it is confined to some.
 * @throws InvalidArgumentsError when a confined caller names none; PathNotAllowedError outside its roots.
 */
export function requireWorkspaceInReach(workspacePath: string | undefined, ctx: CallContext | undefined): void {
  const reach = reachOf(ctx);
  if (!reach.roots) return;
  if (workspacePath === undefined) {
    throw new InvalidArgumentsError(
      `workspacePath: identity '${reach.identity.name}' works under its roots (${reach.roots.join(', ')}): name the session's folder there`,
      'workspacePath',
    );
  }
  if (!reach.covers(workspacePath)) throw new PathNotAllowedError(workspacePath, reach.roots, 'workspacePath');
}
