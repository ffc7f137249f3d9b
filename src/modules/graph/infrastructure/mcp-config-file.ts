import * as fs from 'node:fs';
import * as path from 'node:path';
import { InvalidGraphError } from '../../../kernel/errors';
import type { McpServerConfig } from '../domain/types';

const HTTP_TYPES = new Set(['http', 'streamableHttp', 'sse']);

/**
 * Reads MCP server definitions from `--mcp-config` files (mcpgraph's `-m`): the usual MCP client config shape,
 * `{"mcpServers": {"name": {command, args?, cwd?, env?} | {type: "http"|"streamableHttp"|"sse", url, headers?}}}`.
 * Later files override earlier ones by server name; a graph file's own definition beats them all (see the loader).
 * @throws InvalidGraphError naming the file (and the server) when a file cannot be read or a definition is malformed.
 */
export function readMcpConfigFiles(files: readonly string[]): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const f of files) Object.assign(out, readMcpConfigFile(f));
  return out;
}

function readMcpConfigFile(file: string): Record<string, McpServerConfig> {
  const abs = path.resolve(file);
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(abs, 'utf8'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code ? `cannot be read (${err.code})` : `is not valid JSON (${err.message})`;
    throw new InvalidGraphError(`--mcp-config ${abs} ${why}`, { file: abs });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new InvalidGraphError(`--mcp-config ${abs}: expected an object with "mcpServers"`, { file: abs });
  }
  const servers = (doc as { mcpServers?: unknown }).mcpServers;
  if (servers === undefined) return {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new InvalidGraphError(`--mcp-config ${abs}: "mcpServers" must be an object of server definitions`, { file: abs });
  }
  const out: Record<string, McpServerConfig> = {};
  for (const [name, def] of Object.entries(servers as Record<string, unknown>)) {
    const problem = serverProblem(def);
    if (problem) throw new InvalidGraphError(`--mcp-config ${abs}: server '${name}': ${problem}`, { file: abs });
    out[name] = def as McpServerConfig;
  }
  return out;
}

/** What is wrong with one server definition, or undefined. */
function serverProblem(def: unknown): string | undefined {
  if (typeof def !== 'object' || def === null || Array.isArray(def)) return 'expected an object';
  const d = def as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  const stringMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
  if (d.type !== undefined && d.type !== 'stdio') {
    if (!HTTP_TYPES.has(String(d.type))) return `type must be stdio, http, streamableHttp or sse (got ${JSON.stringify(d.type)})`;
    if (typeof d.url !== 'string' || d.url === '') return `type ${String(d.type)} needs a url`;
    if (d.headers !== undefined && !stringMap(d.headers)) return 'headers must map names to strings';
    return undefined;
  }
  if (typeof d.command !== 'string' || d.command === '') return 'a stdio server needs a command (or give type and url)';
  if (d.args !== undefined && !strings(d.args)) return 'args must be a list of strings';
  if (d.cwd !== undefined && typeof d.cwd !== 'string') return 'cwd must be a string';
  if (d.env !== undefined && !stringMap(d.env)) return 'env must map names to strings';
  return undefined;
}
