import { spawn, spawnSync } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { assertBuilt, CLI, tempDir } from './helpers/server-process';

/** docs/postgres.md's local recipe: scripts/local-postgres.mjs starts a server a fresh `workgraph db migrate` can use. */
const ROOT = path.resolve(__dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('scripts/local-postgres.mjs (docs/postgres.md)', () => {
  it('prints a URL that db migrate and db status accept', async () => {
    assertBuilt();
    const tmp = tempDir('wg-local-pg-');
    require('node:fs').chmodSync(tmp.dir, 0o755); // as root the server runs as `postgres`, which must reach the folder
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/local-postgres.mjs'), path.join(tmp.dir, 'pg'), String(port)], { cwd: ROOT });
    try {
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /^(postgres:\/\/\S+)$/m.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      expect(url).toBe(`postgres://postgres:workgraph@127.0.0.1:${port}/workgraph`);
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
      expect(spawnSync(process.execPath, [CLI, 'db', 'migrate', '--database-url', url], { encoding: 'utf8', env }).status).toBe(0);
      const status = spawnSync(process.execPath, [CLI, 'db', 'status', '--database-url', url], { encoding: 'utf8', env });
      expect(status.status).toBe(0);
      expect(status.stdout).toMatch(/tasks\s+applied \d+, known \d+: up to date/);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      tmp.cleanup();
    }
  }, 90_000);
});
