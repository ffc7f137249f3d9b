import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * The cold start of a plain stdio `serve` (spawn to the first tools/list answer, bench/cold-start.js) is mostly module
 * loading, so what loads before that answer is held here rather than timed: the built server runs with
 * tests/helpers/loaded-modules-hook.js preloaded, which records require.cache and the Node built-ins when tools/list
 * is answered. docs/architecture.md "Cold start" says how each of these stays out.
 */
const HOOK = path.resolve(__dirname, '../helpers/loaded-modules-hook.js');

/**
 * The packages a stdio server needs to answer tools/list: the MCP SDK's v2 server package, its core (the wire
 * schemas) and their zod — not Ajv (the SDK compiles JSON Schemas on first use), not even commander.
 */
const ALLOWED_PACKAGES = ['@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod'];

/** Our files that must wait for the first tool call (the container), --http, --database-url or another command. */
const NOT_BEFORE_FIRST_CALL: Array<[RegExp, string]> = [
  [/\/server\/http\//, 'the HTTP transport (only with --http)'],
  [/\/kernel\/postgres\//, 'PostgreSQL helpers (only with --database-url)'],
  [/\/modules\/[^/]+\/infrastructure\//, "a module's adapters (migrations included): loaded with the container"],
  [/\/modules\/[^/]+\/application\/(use-cases|services|ports)\//, "a module's use cases and services: loaded with the container"],
  [/\/modules\/[^/]+\/[^/]+\.module\.js$/, "a module's wiring: loaded with the container"],
  [/\/server\/(container|data-migrations|database-migrations)\.js$/, 'the container and migrations'],
  [/\/kernel\/files\/(allowed-roots-policy|atomic-write|file-lock|locked-document)\.js$/, 'file helpers of the stores'],
  [/\/dashboard\//, 'the dashboard'],
  [/\/cli\/commands\/(?!serve\.js|serve-args\.js|serve-options\.js|option-specs\.js)[^/]+\.js$/, "commander's command definitions or another command's modules"],
];

function packageOf(file: string): string | undefined {
  const i = file.lastIndexOf('/node_modules/');
  if (i < 0) return undefined;
  const parts = file.slice(i + '/node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

describe('cold start of a plain stdio serve', () => {
  let loaded: { modules: string[]; builtins: string[] };

  beforeAll(async () => {
    const tmp = tempDir();
    const record = path.join(tmp.dir, 'loaded.json');
    const conn = await connectClient({
      dataDir: path.join(tmp.dir, 'data'),
      env: { NODE_OPTIONS: `--require ${HOOK}`, WORKGRAPH_TEST_LOADED_MODULES: record },
    });
    try {
      const { tools } = await conn.client.listTools();
      expect(tools.length).toBeGreaterThan(20);
      loaded = JSON.parse(fs.readFileSync(record, 'utf8'));
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  });

  it('has answered tools/list with the server, its tool declarations and nothing behind them', () => {
    const ours = loaded.modules.filter((f) => packageOf(f) === undefined && f.includes('/dist/'));
    // The record is real: the protocol server and every module's tool declarations are in it.
    expect(ours.some((f) => f.endsWith('/dist/server/mcp-server.js'))).toBe(true);
    for (const m of ['workflow', 'graph', 'tasks', 'knowledge']) expect(ours.some((f) => f.endsWith(`/dist/modules/${m}/${m}.tools.js`))).toBe(true);
    const early = ours.flatMap((f) => NOT_BEFORE_FIRST_CALL.filter(([re]) => re.test(f)).map(([, why]) => `${f.slice(f.indexOf('/dist/'))}: ${why}`));
    expect(early).toEqual([]);
  });

  it('has loaded no package but the SDK (commander neither: a plain serve line is read without it)', () => {
    const packages = [...new Set(loaded.modules.map(packageOf).filter((p): p is string => p !== undefined))].sort();
    expect(packages.filter((p) => !ALLOWED_PACKAGES.includes(p))).toEqual([]);
    expect(packages).toContain('@modelcontextprotocol/server');
  });

  it('has loaded neither node:crypto, node:http nor the TLS stack', () => {
    expect(loaded.builtins).toContain('fs');
    expect(loaded.builtins.filter((b) => ['crypto', 'http', 'https', 'tls', 'http2', 'worker_threads'].includes(b))).toEqual([]);
  });
});
