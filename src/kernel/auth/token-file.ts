import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { isScope, SCOPES, type Identity, type Scope } from '../identity';

/**
 * The one reader of bearer-token configuration, for every command that takes tokens (`serve --http`, `dashboard`):
 * the token file (`--auth-token-file`) and WORKGRAPH_AUTH_TOKENS. Format (docs/http.md "Token file"):
 *
 *     # one token per line; blank lines and lines starting with # are ignored
 *     3b1f…c9                                   a plain token: every scope, the operator's roots
 *     8d2e…41 name=alice roots=/srv/a:/srv/b scopes=read,write,run
 *
 * A token is at least {@link MIN_TOKEN_LENGTH} characters with no whitespace; after it, space-separated fields:
 * `name=` (letters, digits, `.`, `_`, `-`, `@`; default `token-<12 hex digits of the token's SHA-256>`), `roots=`
 * (absolute folders separated by `:`; default: the operator's `--allow-root` roots, unnarrowed) and `scopes=`
 * (comma-separated of read, write, run, admin; default: all four for a plain line, read,write,run once any field is
 * given). Any malformed line stops the start with one line naming the file and line; the token itself is never
 * echoed.
 */

export const MIN_TOKEN_LENGTH = 16;

/** A configured token and the identity it maps to. */
export interface TokenEntry {
  token: string;
  identity: Identity;
}

/** A token configuration that cannot be used: one line naming the file (or variable) and line, never the token. */
export class TokenConfigError extends Error {}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const FIELDS = ['name', 'roots', 'scopes'] as const;
type Field = (typeof FIELDS)[number];
/** The scopes of a line that names an identity but no scopes: everything but admin. */
const NAMED_DEFAULT_SCOPES: readonly Scope[] = ['read', 'write', 'run'];

/**
 * Parses a token file's text. `source` names it in errors (`--auth-token-file: 'tokens'`).
 * @throws TokenConfigError on the first unusable line, or when no token is left.
 */
export function parseTokenFile(text: string, source: string): TokenEntry[] {
  const entries: Array<TokenEntry & { line: number }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    entries.push({ ...parseLine(line, `${source} line ${i + 1}`), line: i + 1 });
  });
  if (entries.length === 0) {
    throw new TokenConfigError(`${source} holds no token (one per line; blank lines and # comments are ignored)`);
  }
  return checkConsistent(entries, (e) => `${source} line ${e.line}`);
}

/**
 * WORKGRAPH_AUTH_TOKENS: comma-separated plain tokens (every scope; identities with their own reach need the file,
 * since `scopes=` holds commas). Spaces around an entry are trimmed, empty entries skipped.
 * @throws TokenConfigError for a short token, one with whitespace inside, or when no token is left (`" , "`).
 */
export function parseTokenList(value: string, source = 'WORKGRAPH_AUTH_TOKENS'): TokenEntry[] {
  const entries: Array<TokenEntry & { index: number }> = [];
  value.split(',').forEach((raw, i) => {
    const token = raw.trim();
    if (token === '') return;
    const where = `${source} entry ${i + 1}`;
    if (/\s/.test(token)) throw new TokenConfigError(`${where}: a token holds no whitespace (tokens are separated by commas; identities with roots and scopes need --auth-token-file)`);
    checkToken(token, where);
    entries.push({ token, identity: { name: defaultName(token), scopes: [...SCOPES] }, index: i + 1 });
  });
  if (entries.length === 0) throw new TokenConfigError(`${source} is set but holds no token (comma-separated tokens of at least ${MIN_TOKEN_LENGTH} characters)`);
  return checkConsistent(entries, (e) => `${source} entry ${e.index}`);
}

function parseLine(line: string, where: string): TokenEntry {
  const [token, ...rest] = line.split(/\s+/);
  checkToken(token, where);
  const fields: Partial<Record<Field, string>> = {};
  rest.forEach((part, i) => {
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq) : undefined;
    if (key === undefined || !(FIELDS as readonly string[]).includes(key)) {
      // Never echo the text: it may be the rest of a token with a space in it.
      throw new TokenConfigError(
        `${where}: field ${i + 2} is not name=…, roots=… or scopes=… (a token holds no whitespace; after it come only these fields)`,
      );
    }
    if (fields[key as Field] !== undefined) throw new TokenConfigError(`${where}: ${key}= is given twice`);
    fields[key as Field] = part.slice(eq + 1);
  });
  const name = fields.name ?? defaultName(token);
  if (!NAME.test(name)) throw new TokenConfigError(`${where}: name= expects letters, digits, '.', '_', '-' or '@' (at most 64), got '${name}'`);
  const identity: { name: string; roots?: string[]; scopes: Scope[] } = {
    name,
    scopes: fields.scopes !== undefined ? parseScopes(fields.scopes, where) : rest.length > 0 ? [...NAMED_DEFAULT_SCOPES] : [...SCOPES],
  };
  if (fields.roots !== undefined) identity.roots = parseRoots(fields.roots, where);
  return { token, identity };
}

function checkToken(token: string, where: string): void {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new TokenConfigError(`${where}: a token must be at least ${MIN_TOKEN_LENGTH} characters (this one has ${token.length}); make one with \`openssl rand -hex 32\``);
  }
}

function parseScopes(value: string, where: string): Scope[] {
  const scopes = value.split(',').filter(Boolean);
  if (scopes.length === 0) throw new TokenConfigError(`${where}: scopes= expects one or more of ${SCOPES.join(', ')} separated by commas`);
  for (const s of scopes) {
    if (!isScope(s)) throw new TokenConfigError(`${where}: scopes=: unknown scope '${s}' (expected ${SCOPES.join(', ')})`);
  }
  return [...new Set(scopes as Scope[])];
}

function parseRoots(value: string, where: string): string[] {
  const roots = value.split(':').filter(Boolean);
  if (roots.length === 0) throw new TokenConfigError(`${where}: roots= expects absolute folders separated by ':' (such as roots=/srv/a:/srv/b)`);
  for (const r of roots) {
    if (!path.isAbsolute(r)) throw new TokenConfigError(`${where}: roots=: '${r}' is not an absolute path`);
  }
  return roots.map((r) => path.resolve(r));
}

/** One token once; one name, one reach (two tokens of one identity are fine: rotation). */
function checkConsistent<E extends TokenEntry>(entries: E[], where: (e: E) => string): TokenEntry[] {
  const byToken = new Map<string, E>();
  const byName = new Map<string, E>();
  for (const e of entries) {
    const seen = byToken.get(e.token);
    if (seen) throw new TokenConfigError(`${where(e)}: the same token as ${where(seen)}`);
    byToken.set(e.token, e);
    const named = byName.get(e.identity.name);
    if (named && reach(named.identity) !== reach(e.identity)) {
      throw new TokenConfigError(`${where(e)}: identity '${e.identity.name}' has other roots or scopes at ${where(named)}; one name, one reach`);
    }
    byName.set(e.identity.name, e);
  }
  return entries.map(({ token, identity }) => ({ token, identity }));
}

function reach(identity: Identity): string {
  return JSON.stringify([identity.roots ? [...identity.roots].sort() : null, [...identity.scopes].sort()]);
}

/** A name for a plain token that does not reveal it: the first 12 hex digits of its SHA-256. */
export function defaultName(token: string): string {
  return `token-${createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12)}`;
}
