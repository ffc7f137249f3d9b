import type { CallContext } from '../../../../kernel/call-context';
import { NotFoundError, PathNotAllowedError } from '../../../../kernel/errors';
import { reachOf, type Reach } from '../../../../kernel/reach';
import { bareNameAltId, projectIdentity } from '../../domain';
import type { KnowledgeOwner, KnowledgeStore } from '../ports/knowledge-store';

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

/**
 * Whether a project with this owner is within reach: a folder's project when the folder is under the caller's roots,
 * a bare-name project when the caller created it (or has `admin`), a project nobody owns yet (new, or made before
 * owners were recorded) by every identity not confined to roots — the first of them to add to it claims it. A
 * confined identity reaches no record without a folder or an owner (kernel/reach.ts), so it works in its own project
 * of that name (see resolveInReach).
 */
export function ownerInReach(owner: KnowledgeOwner, reach: Reach): boolean {
  if (owner.pathKey !== null) return reach.covers(owner.pathKey);
  if (owner.identity !== null) return reach.owns(owner.identity);
  return reach.roots === undefined;
}

/** A project resolved for a caller: `id` is where it is stored, `shown` the id its answers name. */
export interface ProjectInReach {
  id: string;
  shown: string;
}

/**
 * The project a caller's `projectContext` names, within its reach:
 * - a folder: `path_not_allowed` outside its roots, else the folder's project (the store's resolveProject);
 * - a bare name: the project of that name when its owner is within reach (above), else the caller's own project of
 *   that name, kept apart under `<slug>-<hash of the identity>` and answered as `<slug>` — so naming another
 *   identity's bare-name project answers exactly as a project that does not exist, and two identities never write
 *   into one. `claim` (writes) records the caller as the owner of a bare-name project nobody owns yet.
 * @throws PathNotAllowedError for a folder outside the roots; NotFoundError in the one case where even the caller's
 * own id is another's (someone named a project after it).
 */
export async function resolveInReach(
  store: KnowledgeStore,
  projectContext: string,
  ctx: CallContext | undefined,
  opts: { claim?: boolean; field?: string } = {},
): Promise<ProjectInReach> {
  const field = opts.field ?? 'projectContext';
  const ident = projectIdentity(projectContext, field);
  if (ident.pathKey !== null) {
    requireContextInReach(projectContext, ctx, field);
    const id = await store.resolveProject(projectContext, { claim: opts.claim });
    return { id, shown: id };
  }
  const reach = reachOf(ctx);
  if (await mayUse(store, ident.id, reach, opts.claim, false)) return { id: ident.id, shown: ident.id };
  const alt = bareNameAltId(ident.id, reach.identity.name);
  if (await mayUse(store, alt, reach, opts.claim, true)) return { id: alt, shown: ident.id };
  throw new NotFoundError('knowledge project', ident.id, `knowledge project '${ident.id}' not found`);
}

/**
 * Whether `project` is the caller's to use (claiming it when asked and nobody owns it). `ownId`: the id is the
 * caller's own alternative one, which nobody else owning it makes its own (confined identities included).
 */
async function mayUse(store: KnowledgeStore, project: string, reach: Reach, claim: boolean | undefined, ownId: boolean): Promise<boolean> {
  const inReach = (o: KnowledgeOwner) => ownerInReach(o, reach) || (ownId && o.pathKey === null && o.identity === null);
  const owner = await store.owner(project);
  if (!inReach(owner)) return false;
  if (!claim || owner.pathKey !== null || owner.identity !== null) return true;
  // Another identity may claim it at the same moment: the store's answer says who won.
  return inReach(await store.claimForIdentity(project, reach.identity.name));
}

/** Whether a project (by its stored id) is within the caller's reach: listings and searches of several projects. */
export async function projectInReach(store: KnowledgeStore, project: string, ctx: CallContext | undefined): Promise<boolean> {
  return ownerInReach(await store.owner(project), reachOf(ctx));
}
