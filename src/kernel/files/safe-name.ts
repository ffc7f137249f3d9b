import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { UnsafePathError } from '../errors';

/**
 * Checks a plain name (workflow id, file name, project id) that will be joined to a folder: refuses NUL bytes,
 * path separators, `.`/`..`, absolute paths and empty names.
 * @throws UnsafePathError naming `field`.
 */
export function assertSafeName(value: string, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new UnsafePathError(String(value), 'empty name', field);
  if (value.includes('\0')) throw new UnsafePathError(value, 'contains a NUL byte', field);
  if (path.isAbsolute(value) || /^[a-zA-Z]:/.test(value)) throw new UnsafePathError(value, 'absolute path', field);
  if (value.includes('/') || value.includes('\\')) throw new UnsafePathError(value, 'contains a path separator', field);
  if (value === '.' || value === '..') throw new UnsafePathError(value, "is '.' or '..'", field);
  if (value.length > 255) throw new UnsafePathError(value.slice(0, 40) + '…', 'longer than 255 characters', field);
  return value;
}

/**
 * Checks a relative path (e.g. a scaffolded file name `phases/phase-1.md`) stays inside `folder` lexically:
 * no NUL, not absolute, no `..` segment escaping. Returns the joined absolute path.
 * @throws UnsafePathError naming `field`.
 */
export function resolveInside(folder: string, relative: string, field: string): string {
  if (typeof relative !== 'string' || relative.length === 0) throw new UnsafePathError(String(relative), 'empty path', field);
  if (relative.includes('\0')) throw new UnsafePathError(relative, 'contains a NUL byte', field);
  if (path.isAbsolute(relative) || /^[a-zA-Z]:/.test(relative) || relative.startsWith('\\')) {
    throw new UnsafePathError(relative, 'absolute path', field);
  }
  const base = path.resolve(folder);
  const full = path.resolve(base, relative);
  if (full !== base && !full.startsWith(base + path.sep)) throw new UnsafePathError(relative, 'escapes its folder', field);
  if (full === base) throw new UnsafePathError(relative, 'names the folder itself', field);
  return full;
}

/**
 * True when `candidate` (after following symlinks) lies inside `folder` (after following symlinks).
 * A missing candidate is checked through its nearest existing ancestor.
 */
export async function isRealpathInside(folder: string, candidate: string): Promise<boolean> {
  const realFolder = await fs.realpath(folder);
  const realCandidate = await realpathOfNearestExisting(candidate);
  return isInside(realFolder, realCandidate);
}

/** Lexical containment of two absolute, normalized paths (equal counts as inside). */
export function isInside(folder: string, candidate: string): boolean {
  const rel = path.relative(folder, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of `p`, or of its nearest existing ancestor joined with the missing rest. */
export async function realpathOfNearestExisting(p: string): Promise<string> {
  let current = path.resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(p);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}
