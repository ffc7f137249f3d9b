import { spawn, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { assertBuilt, CLI, connectClient, tempDir } from './helpers/server-process';
import { call, SUM_TO_N } from './helpers/dashboard-seed';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * Every command of the built CLI — enumerated from the program itself, so a command added later is covered without
 * touching this test — run with `--data-dir` (and, where it takes one, `--database-url`) pointing at a fresh folder
 * (a fresh database), while HOME, XDG_DATA_HOME and WORKGRAPH_DATABASE_URL point at a sentinel data dir and a sentinel
 * database holding a session, a task graph and a knowledge graph with a backup. Afterwards the sentinels are byte for
 * byte as they were and no output names anything of theirs: the command read and wrote only where it was told.
 * Options go both after the subcommand (`sessions prune --data-dir D`) and before it (`sessions --data-dir D prune`).
 * Before the fix `sessions prune --include-unfinished --older-than 0 --data-dir D` removed the sentinel's session.
 */
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
const WORKFLOW_FILE = path.join(WORKFLOWS, 'session-demo.json');
const MARKERS = { goal: 'sentinel goal 7f3a', task: 'sentinel task 7f3a', thought: 'sentinel thought 7f3a' };

/** Positional arguments for the commands that need them, aimed at the sentinel's records (`<id>` by a prefix). */
function sampleArguments(s: Seeded): Record<string, string[]> {
  return {
    validate: [WORKFLOW_FILE],
    tasks: ['Sentinel App'],
    run: [SUM_TO_N, 'sum_to_n'],
    session: [s.sessionId.slice(0, 8)],
    'knowledge backups': ['sentinel-notes'],
    'knowledge search': ['sentinel-notes', 'sentinel'],
    'knowledge restore-backup': [s.backupId],
  };
}

/** Options that make a command do its most (a prune that would remove the sentinel's unfinished session). */
const EXTRA_OPTIONS: Record<string, string[]> = {
  'sessions prune': ['--include-unfinished', '--older-than', '0'],
  'db import': ['--replace'],
  'db export': ['--replace'],
  run: ['--args', '{"n":2}'],
};

interface Seeded {
  sessionId: string;
  backupId: string;
}

type Snapshot = Record<string, string>;

function snapshot(dir: string): Snapshot {
  const out: Snapshot = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (e.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(p);
      } else out[rel] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

async function databaseSnapshot(url: string): Promise<Record<string, unknown[]>> {
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ schemaname: string; tablename: string }>(
      "SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2",
    );
    const out: Record<string, unknown[]> = {};
    for (const t of tables.rows) {
      const rows = await client.query(`SELECT * FROM "${t.schemaname}"."${t.tablename}"`);
      out[`${t.schemaname}.${t.tablename}`] = rows.rows.map((r) => JSON.stringify(r)).sort();
    }
    return out;
  } finally {
    await client.end();
  }
}

/** A session, a task graph and a knowledge graph with one backup, written by the built server. */
async function seed(dataDir: string, databaseUrl?: string): Promise<Seeded> {
  const conn = await connectClient({ dataDir, args: ['--workflows', WORKFLOWS, ...(databaseUrl ? ['--database-url', databaseUrl] : [])] });
  const projectRoot = path.join(path.dirname(dataDir), 'sentinel-app');
  fs.mkdirSync(projectRoot, { recursive: true });
  try {
    const s = await call(conn.client, 'workflow_start', { workflowId: 'session-demo', goal: MARKERS.goal, context: { files: [] } });
    await call(conn.client, 'init_project_graph', {
      projectName: 'Sentinel App',
      projectRoot,
      nodes: [{ id: 'only', title: MARKERS.task, depends_on: [], validation_command: 'true' }],
    });
    const added = await call(conn.client, 'add_nodes', { projectContext: 'sentinel-notes', nodes: [{ thought: MARKERS.thought, role: 'actor' }] });
    await call(conn.client, 'delete_nodes', { projectContext: 'sentinel-notes', nodeIds: added.ids, reason: 'make a backup' });
    const cli = spawnSync(process.execPath, [CLI, 'knowledge', 'backups', 'sentinel-notes', '--json', '--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    const backupId = (JSON.parse(cli.stdout) as { backups: Array<{ id: string }> }).backups[0]!.id;
    return { sessionId: s.sessionId as string, backupId };
  } finally {
    await conn.close();
  }
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  return env;
}

interface CommandInfo {
  path: string[];
  required: string[];
  options: Set<string>;
  hasSubcommands: boolean;
}

/** Every command of the program (subcommands too), from the built program itself. */
function commands(): CommandInfo[] {
  const { buildProgram } = require(path.resolve(__dirname, '../../dist/cli/program.js')) as typeof import('../../src/cli/program');
  const out: CommandInfo[] = [];
  const walk = (cmd: Command, prefix: string[]) => {
    for (const sub of cmd.commands) {
      const p = [...prefix, sub.name()];
      out.push({
        path: p,
        required: sub.registeredArguments.filter((a) => a.required).map((a) => a.name()),
        options: new Set(sub.options.map((o) => o.long!).filter(Boolean)),
        hasSubcommands: sub.commands.length > 0,
      });
      walk(sub, p);
    }
  };
  walk(buildProgram(), []);
  return out;
}

describe('every CLI command reads and writes only the data dir (and database) it is given', () => {
  let pg: TestPostgres;
  let tmp: ReturnType<typeof tempDir>;
  let home: string;
  let xdg: string;
  let sentinelDb: string;
  let seeded: Seeded;
  let before: { home: Snapshot; xdg: Snapshot; db: Record<string, unknown[]> };

  beforeAll(async () => {
    assertBuilt();
    pg = await startTestPostgres();
    tmp = tempDir('wg-e2e-isolation-');
    home = path.join(tmp.dir, 'home');
    xdg = path.join(tmp.dir, 'xdg');
    seeded = await seed(path.join(xdg, 'workgraph'));
    fs.mkdirSync(path.join(home, '.local', 'share'), { recursive: true });
    fs.cpSync(path.join(xdg, 'workgraph'), path.join(home, '.local', 'share', 'workgraph'), { recursive: true });
    sentinelDb = await pg.createTestDatabase();
    await seed(path.join(tmp.dir, 'db-seed-files'), sentinelDb);
    before = { home: snapshot(home), xdg: snapshot(xdg), db: await databaseSnapshot(sentinelDb) };
  }, 180_000);
  afterAll(async () => {
    tmp?.cleanup();
    await pg?.stop();
  });

  /**
   * HOME and XDG_DATA_HOME at the sentinel data dir; beside a --database-url, WORKGRAPH_DATABASE_URL at the sentinel
   * database (without the flag the variable would rightly apply).
   */
  function sentinelEnv(args: string[]): Record<string, string> {
    return { ...cleanEnv(), HOME: home, XDG_DATA_HOME: xdg, ...(args.includes('--database-url') ? { WORKGRAPH_DATABASE_URL: sentinelDb } : {}), WORKGRAPH_LOG_LEVEL: 'warn' };
  }

  async function runCommand(args: string[], cwd: string, kind: 'serve' | 'dashboard' | 'plain'): Promise<{ code: number | null; out: string }> {
    if (kind === 'serve') {
      // A few calls that read each store, then the end of stdin ends the server.
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'workflow_sessions', arguments: {} } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_project_graph', arguments: { project: 'Sentinel App' } } },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'list_nodes', arguments: { projectContext: 'sentinel-notes', includeDeleted: true } } },
      ];
      const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: sentinelEnv(args), input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', encoding: 'utf8', timeout: 60_000 });
      expect(r.stdout).toContain('"id":4');
      return { code: r.status, out: r.stdout + r.stderr };
    }
    if (kind === 'dashboard') {
      const child = spawn(process.execPath, [CLI, ...args, '--port', '0'], { cwd, env: sentinelEnv(args) });
      let out = '';
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const url = await new Promise<URL>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /(http:\/\/\S+\?token=\S+)/.exec(out);
          if (m) resolve(new URL(m[1]!));
        });
        child.once('exit', (code) => reject(new Error(`dashboard exited with ${code}: ${out}`)));
      });
      for (const api of ['overview', 'sessions', 'knowledge']) {
        const r = await fetch(`${url.origin}${url.pathname.replace(/\/?$/, '/')}api/${api}?token=${url.searchParams.get('token')}`);
        out += await r.text();
      }
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return { code: await exited, out };
    }
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: sentinelEnv(args), encoding: 'utf8', input: '', timeout: 60_000 });
    return { code: r.status, out: r.stdout + r.stderr };
  }

  it('enumerates the commands and covers each (a new command with a required argument needs a sample here)', async () => {
    const all = commands();
    expect(all.map((c) => c.path.join(' '))).toEqual(expect.arrayContaining(['serve', 'sessions', 'sessions prune', 'session', 'tasks', 'db import', 'knowledge restore-backup']));
    const samples = sampleArguments(seeded);
    let n = 0;
    for (const cmd of all) {
      const name = cmd.path.join(' ');
      if (cmd.hasSubcommands && !['sessions'].includes(name)) continue; // a group: its subcommands are run
      const positional = samples[name] ?? [];
      expect({ name, positional: positional.length >= cmd.required.length }).toEqual({ name, positional: true });
      const kind = name === 'serve' ? 'serve' : name === 'dashboard' ? 'dashboard' : 'plain';
      const parent = cmd.path.slice(0, -1);
      const own = cmd.path.slice(-1);
      const variants: string[][] = [];
      const fresh = () => fs.mkdtempSync(path.join(tmp.dir, 'given-'));
      if (cmd.options.has('--data-dir')) {
        const withDb = async (): Promise<string[]> => (cmd.options.has('--database-url') ? ['--database-url', await pg.createTestDatabase()] : []);
        variants.push([...cmd.path, ...positional, ...(EXTRA_OPTIONS[name] ?? []), '--data-dir', fresh()]);
        variants.push([...cmd.path, ...positional, ...(EXTRA_OPTIONS[name] ?? []), '--data-dir', fresh(), ...(await withDb())]);
        if (parent.length) variants.push([...parent, '--data-dir', fresh(), ...(await withDb()), ...own, ...positional, ...(EXTRA_OPTIONS[name] ?? [])]);
      } else {
        variants.push([...cmd.path, ...positional, ...(EXTRA_OPTIONS[name] ?? [])]);
      }
      for (const args of variants) {
        const cwd = fresh();
        const r = await runCommand(args, cwd, kind);
        const label = `workgraph ${args.join(' ')}`;
        // Accepted as given (a usage error would mean an option its help lists was refused).
        expect({ label, code: r.code === 2 ? `usage error: ${r.out}` : 'ok' }).toEqual({ label, code: 'ok' });
        for (const marker of [seeded.sessionId, ...Object.values(MARKERS)]) expect({ label, named: r.out.includes(marker) ? marker : undefined }).toEqual({ label, named: undefined });
        expect({ label, cwd: snapshot(cwd) }).toEqual({ label, cwd: {} });
        expect({ label, home: snapshot(home), xdg: snapshot(xdg) }).toEqual({ label, home: before.home, xdg: before.xdg });
        expect({ label, db: await databaseSnapshot(sentinelDb) }).toEqual({ label, db: before.db });
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
  }, 600_000);
});
