import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigFileError } from './config-file';
import type { TokenEntry } from '../kernel/auth/token-file';

/** Where a command's bearer tokens may come from; the first one given wins. */
export interface TokenSources {
  /** `--auth-token-file` (relative to `cwd`). */
  flagFile?: string;
  /** The flag's name in messages: `--auth-token-file`. */
  flagName?: string;
  env: NodeJS.ProcessEnv;
  /** The config file's `authTokenFile` (already resolved against the config file's folder). */
  configFile?: string;
  cwd: string;
}

/**
 * The bearer tokens a command is configured with, read by the one token reader (src/kernel/auth/token-file.ts) for
 * every command that takes them (`serve --http`, `dashboard`): `--auth-token-file`, else WORKGRAPH_AUTH_TOKEN_FILE,
 * else WORKGRAPH_AUTH_TOKENS, else the config file's `authTokenFile`; undefined when none is given. Asked for but
 * unusable (unreadable, a short token, whitespace in one, nothing left) stops the command with one line (exit 2).
 */
export function resolveAuthTokens(s: TokenSources): TokenEntry[] | undefined {
  const entries = readAuthTokens(s);
  // Roots are compared with the real paths records keep (a project's project_root, a session's workspacePath).
  return entries?.map((e) => (e.identity.roots ? { ...e, identity: { ...e.identity, roots: e.identity.roots.map(realpathOfNearest) } } : e));
}

/** The real path of `p`, or of its nearest existing ancestor joined with the missing rest. */
function realpathOfNearest(p: string): string {
  const rest: string[] = [];
  let current = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(p);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

function readAuthTokens(s: TokenSources): TokenEntry[] | undefined {
  // Loaded only when a command takes tokens: node:crypto stays out of a plain stdio serve's cold start.
  const { parseTokenFile, parseTokenList, TokenConfigError } = require('../kernel/auth/token-file') as typeof import('../kernel/auth/token-file');
  const flagName = s.flagName ?? '--auth-token-file';
  const fromFile = (file: string, setting: string): TokenEntry[] => {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigFileError(`${setting}: cannot read '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    return parseTokenFile(text, `${setting}: '${file}'`);
  };
  try {
    if (s.flagFile !== undefined) return fromFile(path.resolve(s.cwd, s.flagFile), flagName);
    const envFile = s.env.WORKGRAPH_AUTH_TOKEN_FILE;
    if (envFile !== undefined && envFile.trim() !== '') return fromFile(path.resolve(s.cwd, envFile), 'WORKGRAPH_AUTH_TOKEN_FILE');
    const list = s.env.WORKGRAPH_AUTH_TOKENS;
    // Set is asked for: `" , "` holds no token and stops the start rather than serving without authentication.
    if (list !== undefined && list !== '') return parseTokenList(list);
    if (s.configFile !== undefined) return fromFile(s.configFile, 'authTokenFile (config file)');
    return undefined;
  } catch (e) {
    if (e instanceof TokenConfigError) throw new ConfigFileError(e.message);
    throw e;
  }
}
