/**
 * Who is calling: every tool call runs as one identity, carried in its CallContext (docs/http.md "The security model").
 * A bearer token or an OAuth access token maps to one (src/kernel/auth/token-file.ts, the HTTP transport's verifiers);
 * stdio runs as the one local identity. Pure: no Node API, so any layer may read it.
 */

/** What an identity may do. */
export const SCOPES = ['read', 'write', 'run', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope allows, worded for error messages and docs. */
export const SCOPE_MEANING: Record<Scope, string> = {
  read: 'read tasks, sessions, knowledge and graph runs',
  write: 'create and change them',
  run: 'run task validation and verification commands',
  admin: "see and change every identity's records within its roots",
};

export interface Identity {
  /** A stable, non-secret name: records keep it as their actor, and what is owned by creator belongs to it. */
  readonly name: string;
  /**
   * The folders it may reach (absolute paths), narrowing the operator's `--allow-root` roots; undefined: the
   * operator's roots as they are (stdio, a plain token line).
   */
  readonly roots?: readonly string[];
  readonly scopes: readonly Scope[];
}

/** The name stdio (and an HTTP server without tokens on loopback) runs as. */
export const LOCAL_IDENTITY_NAME = 'local';

/** The one local identity: every scope, the operator's roots. */
export const LOCAL_IDENTITY: Identity = Object.freeze({ name: LOCAL_IDENTITY_NAME, scopes: Object.freeze([...SCOPES]) });

export function hasScope(identity: Identity, scope: Scope): boolean {
  return identity.scopes.includes(scope);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Who did something, as records keep it: the identity's name, and beside it the name the agent's MCP client gave in
 * `initialize` or, in the 2026-07-28 era, in each request's `_meta` (`clientInfo.name`), when known. Shown by the tools that return the record, the CLI and the dashboard.
 */
export interface Actor {
  name: string;
  client?: string;
}
