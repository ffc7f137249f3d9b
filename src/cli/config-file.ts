import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './usage-error';

/**
 * The config file (`--config FILE`, `WORKGRAPH_CONFIG`): JSON or YAML (told apart by the extension `.json`, else read
 * as YAML, which also reads JSON), holding any flag's setting under the flag's camelCase name
 * (`dataDir`, `allowRoot`, `graphs`, …). Flags and environment variables beat the file. Relative paths in the file
 * are resolved against the file's folder. An unknown key or a value of the wrong type is an error naming the file and
 * the key.
 */
export type ConfigFileSettings = Record<string, unknown>;

/** The settings the file may hold and what each must be. A setting added to the CLI adds its line here. */
export const CONFIG_FILE_KEYS: Record<string, 'string' | 'strings' | 'path' | 'paths' | 'integer' | 'boolean' | 'oauth'> = {
  workflows: 'paths',
  graphs: 'paths',
  dataDir: 'path',
  allowRoot: 'paths',
  logLevel: 'string',
  outputTail: 'integer',
  maxBlockedAttempts: 'integer',
  sessionRetentionDays: 'integer',
  modules: 'strings',
  onlyGraphs: 'boolean',
  graphAuthoring: 'boolean',
  ui: 'boolean',
  mcpConfig: 'paths',
  databaseUrl: 'string',
  databasePoolSize: 'integer',
  shutdownGrace: 'integer',
  graphHistoryMb: 'integer',
  graphRunHistoryMb: 'integer',
  graphResultMb: 'integer',
  graphRunsKeep: 'integer',
  maxSubscriptions: 'integer',
  claimTtl: 'string',
  maxVerificationAttempts: 'integer',
  verificationTimeout: 'string',
  agentVerification: 'boolean',
  sessionArtifactsMb: 'integer',
  sessionLogMb: 'integer',
  // serve's HTTP transport (src/cli/resolve-http-config.ts)
  http: 'string',
  stdio: 'boolean',
  authTokenFile: 'path',
  allowedOrigins: 'strings',
  allowedHosts: 'strings',
  publicUrl: 'string',
  sessionIdleTimeout: 'string',
  maxSessions: 'integer',
  dashboard: 'boolean',
  allowActions: 'boolean',
  oauthIssuer: 'string',
  oauthAudience: 'string',
  // The same as a section: oauth: { issuer, audience, jwksUrl }
  oauth: 'oauth',
};

const OAUTH_URL_KEYS = ['issuer', 'audience', 'jwksUrl'];
const OAUTH_KEYS = [...OAUTH_URL_KEYS, 'rootsClaim', 'subjects', 'unmappedRoots'];

/** A config file that cannot be read, or a setting in it (or in a flag) that is malformed: a usage error (exit 2). */
export class ConfigFileError extends UsageError {}

export function readConfigFile(file: string, cwd = process.cwd()): ConfigFileSettings {
  const abs = path.resolve(cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    throw new ConfigFileError(`config file ${abs}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let value: unknown;
  try {
    value = abs.endsWith('.json') ? JSON.parse(text) : (require('yaml') as typeof import('yaml')).parse(text);
  } catch (e) {
    throw new ConfigFileError(`config file ${abs}: not valid ${abs.endsWith('.json') ? 'JSON' : 'YAML'} (${(e as Error).message.split('\n')[0]})`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigFileError(`config file ${abs}: expected an object of settings at the top level`);
  const dir = path.dirname(abs);
  const out: ConfigFileSettings = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const kind = CONFIG_FILE_KEYS[key];
    if (!kind) throw new ConfigFileError(`config file ${abs}: unknown setting "${key}" (known: ${Object.keys(CONFIG_FILE_KEYS).join(', ')})`);
    const wrong = (expected: string) => new ConfigFileError(`config file ${abs}: "${key}" must be ${expected}`);
    switch (kind) {
      case 'string':
        if (typeof v !== 'string') throw wrong('a string');
        out[key] = v;
        break;
      case 'path':
        if (typeof v !== 'string' || !v) throw wrong('a path');
        out[key] = path.resolve(dir, v);
        break;
      case 'strings':
      case 'paths': {
        const list = typeof v === 'string' ? [v] : v;
        if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || !x)) throw wrong('a string or a list of strings');
        out[key] = kind === 'paths' ? list.map((p: string) => path.resolve(dir, p)) : list;
        break;
      }
      case 'integer':
        if (!Number.isInteger(v)) throw wrong('an integer');
        out[key] = v;
        break;
      case 'boolean':
        if (typeof v !== 'boolean') throw wrong('true or false');
        out[key] = v;
        break;
      case 'oauth': {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw wrong('a section with issuer, audience (and jwksUrl)');
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          if (!OAUTH_KEYS.includes(k)) throw new ConfigFileError(`config file ${abs}: unknown setting "oauth.${k}" (known: ${OAUTH_KEYS.join(', ')})`);
          if (k === 'subjects') {
            // subject → its roots: absolute folders, a list or one string separated by ':' (as a token file's roots=).
            if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new ConfigFileError(`config file ${abs}: "oauth.subjects" must map each subject (sub) to its roots`);
            for (const [sub, roots] of Object.entries(x as Record<string, unknown>)) {
              const list = typeof roots === 'string' ? roots.split(':').filter(Boolean) : roots;
              if (!Array.isArray(list) || list.some((r) => typeof r !== 'string' || !path.isAbsolute(r))) {
                throw new ConfigFileError(`config file ${abs}: "oauth.subjects.${sub}" must be absolute folders (a list, or one string separated by ':')`);
              }
            }
            continue;
          }
          if (typeof x !== 'string' || !x) throw new ConfigFileError(`config file ${abs}: "oauth.${k}" must be ${OAUTH_URL_KEYS.includes(k) ? 'a URL' : 'a string'}`);
        }
        out[key] = v;
        break;
      }
    }
  }
  return out;
}
