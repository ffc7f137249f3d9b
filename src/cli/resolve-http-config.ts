import { ConfigFileError, readConfigFile } from './config-file';
import { resolveAuthTokens } from './auth-tokens';
import * as path from 'node:path';
import type { HttpConfig, OAuthSettings } from '../server/http/http-config';

/** The serve command's HTTP flags (commander's camel-cased names). */
export interface HttpFlags {
  http?: string;
  stdio?: boolean;
  authTokenFile?: string;
  /** `--oauth-issuer` / `--oauth-audience`: accept this authorization server's JWT access tokens. */
  oauthIssuer?: string;
  oauthAudience?: string;
  /** `--oauth-roots-claim`: the access-token claim naming an OAuth identity's roots. */
  oauthRootsClaim?: string;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  publicUrl?: string;
  sessionIdleTimeout?: string;
  maxSessions?: string;
  /** Mount the web dashboard at /dashboard/ (env WORKGRAPH_DASHBOARD=1). */
  dashboard?: boolean;
  /** With the dashboard: its actions (reset a task, restore knowledge nodes, run a graph tool). */
  allowActions?: boolean;
  /** The config file (`--config`, WORKGRAPH_CONFIG), which may hold any of these settings. */
  config?: string;
}

/** The HTTP settings as a config file holds them (paths already resolved against the file's folder). */
interface HttpFileSettings {
  http?: string;
  stdio?: boolean;
  authTokenFile?: string;
  oauthIssuer?: string;
  oauthAudience?: string;
  oauth?: { issuer?: string; audience?: string; jwksUrl?: string; rootsClaim?: string; subjects?: Record<string, string | string[]>; unmappedRoots?: string };
  allowedOrigins?: string[];
  allowedHosts?: string[];
  publicUrl?: string;
  sessionIdleTimeout?: string;
  maxSessions?: number;
  dashboard?: boolean;
  allowActions?: boolean;
}

/**
 * Resolves the HTTP transport's settings (a flag beats its environment variable beats the config file beats the
 * default), or undefined
 * when neither `--http` nor WORKGRAPH_HTTP asks for it. Refuses, with a one-line message naming the setting, a
 * non-loopback bind without tokens and any malformed value.
 */
export function resolveHttpConfig(flags: HttpFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): HttpConfig | undefined {
  const configFile = flags.config ?? nonEmpty(env.WORKGRAPH_CONFIG);
  const file = (configFile ? readConfigFile(configFile, cwd) : {}) as HttpFileSettings;
  const address = flags.http ?? nonEmpty(env.WORKGRAPH_HTTP) ?? file.http;
  if (address === undefined) {
    for (const [flag, set] of [
      ['--auth-token-file', flags.authTokenFile],
      ['--oauth-issuer', flags.oauthIssuer],
      ['--oauth-audience', flags.oauthAudience],
      ['--oauth-roots-claim', flags.oauthRootsClaim],
      ['--allowed-origins', flags.allowedOrigins],
      ['--allowed-hosts', flags.allowedHosts],
      ['--public-url', flags.publicUrl],
      ['--session-idle-timeout', flags.sessionIdleTimeout],
      ['--max-sessions', flags.maxSessions],
      ['--dashboard', flags.dashboard],
    ] as const) {
      if (set === undefined) continue;
      throw new Error(
        flag === '--dashboard'
          ? `${flag}: the dashboard is mounted on the HTTP transport: give --http [HOST:]PORT too (or run \`workgraph dashboard\`)`
          : `${flag} applies to the HTTP transport: give --http [HOST:]PORT too`,
      );
    }
    return undefined;
  }
  // The HTTP modules (the token reader pulls in node:crypto) load only when HTTP is asked for: a plain stdio serve's
  // cold start stays without them (docs/architecture.md "Cold start").
  const { HTTP_DEFAULTS } = require('../server/http/http-config') as typeof import('../server/http/http-config');
  const { isLoopbackHost, parseListenAddress } = require('../server/http/listen-address') as typeof import('../server/http/listen-address');
  const listen = parseListenAddress(address, flags.http !== undefined ? '--http' : env.WORKGRAPH_HTTP?.trim() ? 'WORKGRAPH_HTTP' : 'http (config file)');
  const tokens = resolveAuthTokens({ flagFile: flags.authTokenFile, env, configFile: file.authTokenFile, cwd }) ?? [];
  const oauth = resolveOAuth(flags, env, file);
  if (tokens.length === 0 && !oauth && !isLoopbackHost(listen.host)) {
    throw new Error(
      `--http: binding ${listen.host} (not a loopback address) requires authentication: give --auth-token-file FILE, WORKGRAPH_AUTH_TOKENS or --oauth-issuer with --oauth-audience, or bind 127.0.0.1`,
    );
  }
  const publicUrl = flags.publicUrl ?? nonEmpty(env.WORKGRAPH_PUBLIC_URL) ?? file.publicUrl;
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new Error(`--public-url: expected an http(s) URL such as https://mcp.example.com, got '${publicUrl}'`);
  }
  const dashboard = flags.dashboard ?? flag01(env.WORKGRAPH_DASHBOARD, 'WORKGRAPH_DASHBOARD') ?? file.dashboard ?? false;
  const allowActions = flags.allowActions ?? file.allowActions ?? false;
  // Without --dashboard, --allow-actions enables the MCP Apps views' actions only (resolve-config.ts).
  return {
    listen,
    stdio: flags.stdio ?? file.stdio ?? false,
    ...(dashboard ? { dashboard: { allowActions } } : {}),
    tokens,
    ...(oauth ? { oauth } : {}),
    allowedHosts: flags.allowedHosts ?? (env.WORKGRAPH_ALLOWED_HOSTS?.trim() ? list(env.WORKGRAPH_ALLOWED_HOSTS) : (file.allowedHosts ?? [])),
    allowedOrigins: flags.allowedOrigins ?? (env.WORKGRAPH_ALLOWED_ORIGINS?.trim() ? list(env.WORKGRAPH_ALLOWED_ORIGINS) : (file.allowedOrigins ?? [])),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    sessionIdleTimeoutMs:
      flags.sessionIdleTimeout !== undefined
        ? parseDuration(flags.sessionIdleTimeout, '--session-idle-timeout')
        : env.WORKGRAPH_SESSION_IDLE_TIMEOUT
          ? parseDuration(env.WORKGRAPH_SESSION_IDLE_TIMEOUT, 'WORKGRAPH_SESSION_IDLE_TIMEOUT')
          : file.sessionIdleTimeout !== undefined
            ? parseDuration(file.sessionIdleTimeout, 'sessionIdleTimeout (config file)')
            : HTTP_DEFAULTS.sessionIdleTimeoutMs,
    maxSessions:
      flags.maxSessions !== undefined
        ? positiveInt(flags.maxSessions, '--max-sessions')
        : env.WORKGRAPH_MAX_SESSIONS
          ? positiveInt(env.WORKGRAPH_MAX_SESSIONS, 'WORKGRAPH_MAX_SESSIONS')
          : file.maxSessions !== undefined
            ? positiveInt(String(file.maxSessions), 'maxSessions (config file)')
            : HTTP_DEFAULTS.maxSessions,
  };
}

/**
 * The OAuth resource-server settings: `--oauth-issuer` and `--oauth-audience` (env WORKGRAPH_OAUTH_ISSUER,
 * WORKGRAPH_OAUTH_AUDIENCE; config file `oauthIssuer`/`oauthAudience` or an `oauth: {issuer, audience, jwksUrl}`
 * section), both or neither, each an http(s) URL.
 */
function resolveOAuth(flags: HttpFlags, env: NodeJS.ProcessEnv, file: HttpFileSettings): OAuthSettings | undefined {
  const issuer = flags.oauthIssuer ?? nonEmpty(env.WORKGRAPH_OAUTH_ISSUER) ?? file.oauthIssuer ?? file.oauth?.issuer;
  const audience = flags.oauthAudience ?? nonEmpty(env.WORKGRAPH_OAUTH_AUDIENCE) ?? file.oauthAudience ?? file.oauth?.audience;
  const jwksUrl = file.oauth?.jwksUrl;
  if (issuer === undefined && audience === undefined) return undefined;
  if (issuer === undefined) throw new ConfigFileError('--oauth-audience: give --oauth-issuer URL too (the authorization server whose tokens to accept)');
  if (audience === undefined) throw new ConfigFileError("--oauth-issuer: give --oauth-audience URL too (this server's public MCP URL, which its tokens must name)");
  for (const [setting, url] of [['--oauth-issuer', issuer], ['--oauth-audience', audience], ['oauth.jwksUrl (config file)', jwksUrl]] as const) {
    if (url !== undefined && !/^https?:\/\/[^/\s]+\S*$/.test(url)) throw new ConfigFileError(`${setting}: expected an http(s) URL, got '${url}'`);
  }
  const rootsClaim = flags.oauthRootsClaim ?? nonEmpty(env.WORKGRAPH_OAUTH_ROOTS_CLAIM) ?? file.oauth?.rootsClaim ?? 'workgraph_roots';
  if (!/^[A-Za-z0-9_.:/-]{1,128}$/.test(rootsClaim)) throw new ConfigFileError(`--oauth-roots-claim: expected a claim name (letters, digits, _ . : / -), got '${rootsClaim}'`);
  const unmapped = nonEmpty(env.WORKGRAPH_OAUTH_UNMAPPED_ROOTS) ?? file.oauth?.unmappedRoots ?? 'operator';
  if (unmapped !== 'operator' && unmapped !== 'none') {
    throw new ConfigFileError(`oauth.unmappedRoots (WORKGRAPH_OAUTH_UNMAPPED_ROOTS): expected 'operator' or 'none', got '${unmapped}'`);
  }
  const subjects: Record<string, string[]> = {};
  for (const [sub, roots] of Object.entries(file.oauth?.subjects ?? {})) {
    subjects[sub] = (typeof roots === 'string' ? roots.split(':').filter(Boolean) : roots).map((r) => path.resolve(r));
  }
  return { issuer, audience, ...(jwksUrl ? { jwksUrl } : {}), rootsClaim, subjects, unmappedRoots: unmapped };
}

/** `90` (seconds), `90s`, `30m`, `1h`, `500ms` → milliseconds. */
export function parseDuration(value: string, setting: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  const ms = m ? Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`${setting}: expected a duration such as 90s, 30m or 1h, got '${value}'`);
  return Math.round(ms);
}

function positiveInt(value: string, setting: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new Error(`${setting}: expected a positive whole number, got '${value}'`);
  return n;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `1`/`true` or `0`/`false` (an environment switch); undefined when unset. */
function flag01(value: string | undefined, setting: string): boolean | undefined {
  const v = nonEmpty(value)?.trim().toLowerCase();
  if (v === undefined) return undefined;
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new Error(`${setting}: expected 1 or 0, got '${value}'`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
