import type { CallContext } from '../../../../kernel/call-context';
import { normalizePathKey } from '../../domain';

/**
 * Which knowledge projects a caller may search: an identity without roots (stdio, a plain token) every project; one
 * with roots only the projects whose owning folder lies inside one of them — a project known only by a bare name, or
 * owned by a folder elsewhere, is never searched for it.
 */
export function mayReadProject(ctx: CallContext | undefined, ownerPathKey: string | null): boolean {
  const roots = ctx?.identity?.roots;
  if (roots === undefined) return true;
  if (ownerPathKey === null) return false;
  return roots.some((r) => {
    const root = normalizePathKey(r).replace(/\/+$/, '');
    return ownerPathKey === root || ownerPathKey.startsWith(root + '/');
  });
}
