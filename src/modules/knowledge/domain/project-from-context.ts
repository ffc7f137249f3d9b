import { InvalidArgumentsError } from '../../../kernel/errors';
import { projectIdFromName } from '../../../kernel/project-id';

/**
 * The project name of a `projectContext`: its last path segment. Both `/` and `\` separate segments (so Windows
 * paths like `C:\work\app\` work on any platform) and trailing separators are ignored: `/a/b/` → `b`,
 * `C:\work\app\` → `app`, `app` → `app`.
 * @throws InvalidArgumentsError when no segment remains (`/`, `C:\`, empty).
 */
export function projectNameFromContext(projectContext: string, field = 'projectContext'): string {
  if (typeof projectContext !== 'string' || projectContext.includes('\0')) {
    throw new InvalidArgumentsError(`${field}: expected a folder path or project name without NUL bytes`, field);
  }
  const segments = projectContext
    .trim()
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.');
  const last = segments[segments.length - 1];
  // A bare drive (`C:`) is not a project.
  if (last === undefined || /^[a-zA-Z]:$/.test(last) || last === '..') {
    throw new InvalidArgumentsError(`${field}: '${projectContext}' has no last folder name to take the project from`, field);
  }
  return last;
}

/** The safe project id (folder name under `<data-dir>/projects/`) of a `projectContext`: `C:\work\My App\` → `my-app`. */
export function projectIdFromContext(projectContext: string, field = 'projectContext'): string {
  return projectIdFromName(projectNameFromContext(projectContext, field), field);
}

/**
 * How a `projectContext` names its knowledge project.
 * - A bare name (`app`, no separator) is the project of that name: id = its slug, as it always was.
 * - A path (`/home/me/work/app`) belongs to the folder it names. `pathKey` is the path normalized (separators unified,
 *   `.`/`..` and repeated or trailing separators resolved, a Windows drive letter lowercased) so one folder written
 *   two ways is one project. The first folder to use a name gets the plain, readable id (`app`); a different folder
 *   with the same last segment gets `altId`, the name's slug plus a hash of its path (`app-3f9c1a2b`) — two folders are
 *   never one project. Which folder owns the plain id is recorded in the project folder (see the knowledge store).
 */
export interface ProjectIdentity {
  name: string;
  /** The plain id: the slug of the name. */
  id: string;
  /** The normalized path, or null for a bare name. */
  pathKey: string | null;
  /** The id used when another folder owns the plain id (null for a bare name). */
  altId: string | null;
}

export function projectIdentity(projectContext: string, field = 'projectContext'): ProjectIdentity {
  const name = projectNameFromContext(projectContext, field);
  const id = projectIdFromName(name, field);
  const trimmed = projectContext.trim();
  if (!/[\\/]/.test(trimmed)) return { name, id, pathKey: null, altId: null };
  const pathKey = normalizePathKey(trimmed);
  return { name, id, pathKey, altId: `${id.slice(0, 90).replace(/-+$/, '')}-${fnv1a32(pathKey)}` };
}

/**
 * Where an identity's own bare-name project is kept when another identity owns the plain id (knowledge-reach.ts):
 * the slug plus a hash of the identity's name (`notes-5d41402a`), as a second folder gets the slug plus a hash of its
 * path.
 */
export function bareNameAltId(id: string, identity: string): string {
  return `${id.slice(0, 90).replace(/-+$/, '')}-${fnv1a32(`identity:${identity}`)}`;
}

/** `C:\Work\.\app\` → `c:/Work/app`; `/a//b/../c/` → `/a/c`. Pure string work: the folder need not exist here. */
export function normalizePathKey(p: string): string {
  let s = p.replace(/\\/g, '/');
  let prefix = '';
  const drive = /^([a-zA-Z]):/.exec(s);
  if (drive) {
    prefix = `${drive[1]!.toLowerCase()}:`;
    s = s.slice(2);
  }
  if (s.startsWith('//') && !prefix) prefix = '//'; // UNC share
  const absolute = s.startsWith('/');
  const out: string[] = [];
  for (const seg of s.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const root = prefix === '//' ? '//' : `${prefix}${absolute ? '/' : ''}`;
  return root + out.join('/');
}

/** 32-bit FNV-1a of the UTF-16 code units, as 8 hex digits: a short, stable, dependency-free fingerprint of a path. */
function fnv1a32(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
