import * as path from 'node:path';
import { hasScope, LOCAL_IDENTITY, type Identity } from './identity';
import { NotFoundError } from './errors';
import type { CallContext } from './call-context';

/**
 * What an identity can see and change (docs/http.md "What an identity sees"): the records that lie under its roots —
 * task projects by `project_root`, sessions by `workspacePath`, knowledge projects by the folder their
 * `projectContext` names — and, for records that name no folder (a knowledge project named by a bare name, a graph
 * run), those it created; `admin` owns every creator's. An identity without `roots=` is not confined by folder.
 * Whatever it may not see is answered exactly as if it did not exist (`not_found`), never "forbidden".
 */
export interface Reach {
  readonly identity: Identity;
  /** The folders it is confined to (absolute); undefined: not confined. */
  readonly roots?: readonly string[];
  /** Whether a record living at `folder` (absolute) is within reach; a record with no folder is not, when confined. */
  covers(folder: string | undefined): boolean;
  /** Whether a record created by `actor` is the identity's: its own, or anyone's with `admin`. */
  owns(actor: string | undefined): boolean;
}

/** The reach of the identity a call runs as (the local identity without a context: CLI, tests). */
export function reachOf(subject: Identity | Pick<CallContext, 'identity'> | undefined): Reach {
  const identity = subject === undefined ? LOCAL_IDENTITY : 'identity' in subject ? subject.identity : subject;
  const roots = identity.roots;
  return {
    identity,
    ...(roots ? { roots } : {}),
    covers: (folder) => roots === undefined || (folder !== undefined && roots.some((r) => inside(r, folder))),
    owns: (actor) => hasScope(identity, 'admin') || (actor !== undefined && actor === identity.name),
  };
}

/**
 * Throws the same NotFoundError a missing record gets when `visible` is false: a record out of reach is never
 * confirmed to exist.
 */
export function requireVisible(visible: boolean, notFound: () => NotFoundError): void {
  if (!visible) throw notFound();
}

function inside(folder: string, candidate: string): boolean {
  const rel = path.relative(path.resolve(folder), path.resolve(candidate));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
