import type { CallContext } from '../../../../kernel/call-context';
import { PathNotAllowedError } from '../../../../kernel/errors';
import { reachOf } from '../../../../kernel/reach';
import { projectIdentity } from '../../domain';

/**
 * A knowledge project named by a folder (`projectContext: "/srv/a/app"`) is within a caller's reach when the folder
 * lies under its roots (docs/http.md "What an identity sees"). A folder outside them is refused as an argument —
 * `path_not_allowed`, whether or not a graph exists there — so the answer confirms nothing about another identity's
 * project. A caller not confined to roots reaches every folder.
 * @throws PathNotAllowedError naming projectContext.
 */
export function requireContextInReach(projectContext: string, ctx: CallContext | undefined, field = 'projectContext'): void {
  const reach = reachOf(ctx);
  if (!reach.roots) return;
  const { pathKey } = projectIdentity(projectContext, field);
  if (pathKey !== null && !reach.covers(pathKey)) throw new PathNotAllowedError(projectContext, reach.roots, field);
}
