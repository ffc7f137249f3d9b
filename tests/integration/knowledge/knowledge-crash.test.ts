import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeKnowledgeEnv } from './support/knowledge-env';
import { NODE_MODULES, transpileSrc } from './support/transpile-src';
import { REBUILDER_JS } from './support/child-scripts';

const CTX = '/work/crash-project';
const P = 'crash-project';
/** 10 in `npm test`; a stress run sets KNOWLEDGE_CRASH_ITERATIONS=50. */
const ITERATIONS = Number(process.env.KNOWLEDGE_CRASH_ITERATIONS ?? 10);
const NODES = 60_000;

interface Run {
  killedAfterMs: number | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  startToExitMs: number;
}

/** Runs the rebuilder; when `killAfter` is given, SIGKILLs it that many ms after it prints `start`. */
function runRebuilder(script: string, args: string[], killAfter?: () => number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, NODE_PATH: NODE_MODULES }, stdio: ['ignore', 'pipe', 'pipe'] });
    let started = 0;
    let killedAfterMs: number | null = null;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d: Buffer) => {
      if (!started && d.toString().includes('start')) {
        started = Date.now();
        if (killAfter) {
          const ms = killAfter();
          setTimeout(() => {
            killedAfterMs = ms;
            child.kill('SIGKILL');
          }, ms);
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (exitCode, signal) => {
      if (exitCode !== 0 && signal !== 'SIGKILL') reject(new Error(`rebuilder failed (${exitCode}): ${stderr}`));
      else resolve({ killedAfterMs: signal ? killedAfterMs : null, exitCode, signal, startToExitMs: Date.now() - started });
    });
  });
}

describe('crash safety of the rebuild', () => {
  let tmp: string;
  let script: string;
  let srcDir: string;
  let template: string;
  const toDelete = Array.from({ length: 10 }, (_, i) => `n${NODES - 1 - i * 997}`);
  const all = Array.from({ length: NODES }, (_, i) => `n${i}`);
  const oldSet = new Set(all);
  const newSet = new Set(all.filter((id) => !toDelete.includes(id)));

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-knowledge-crash-'));
    srcDir = transpileSrc(path.join(tmp, 'build'));
    script = path.join(tmp, 'rebuilder.js');
    await fs.writeFile(script, REBUILDER_JS);
    template = path.join(tmp, 'template.ndjson');
    const lines = all.map((id) =>
      JSON.stringify({ id, project: P, projectContext: CTX, thought: `thought ${id} ${'y'.repeat(180)}`, role: 'actor', tags: ['t'], artifacts: [], parents: [], createdAt: '2025-01-01T00:00:00.000Z' }),
    );
    await fs.writeFile(template, lines.join('\n') + '\n');
  }, 60_000);
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  async function freshDataDir(i: number): Promise<string> {
    const dataDir = path.join(tmp, `data-${i}`);
    const dir = path.join(dataDir, 'projects', P);
    await fs.mkdir(dir, { recursive: true });
    await fs.copyFile(template, path.join(dir, 'knowledge_graph.ndjson'));
    return dataDir;
  }

  async function idsIn(dataDir: string): Promise<Set<string>> {
    const raw = await fs.readFile(path.join(dataDir, 'projects', P, 'knowledge_graph.ndjson'), 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const ids = raw.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).id as string); // any torn line throws
    const set = new Set(ids);
    expect(set.size).toBe(ids.length);
    return set;
  }

  const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

  it(`a rebuild SIGKILLed at random moments (${ITERATIONS}×) always leaves the old or the new complete graph`, async () => {
    // One full run measures how long a rebuild takes on this machine, so kills land inside it.
    const calib = await freshDataDir(-1);
    const full = await runRebuilder(script, [srcDir, calib, CTX, toDelete.join(',')]);
    expect(sameSet(await idsIn(calib), newSet)).toBe(true);
    const window = Math.max(20, full.startToExitMs);

    const outcomes: string[] = [];
    let lastDataDir = '';
    for (let i = 0; i < ITERATIONS; i++) {
      const dataDir = await freshDataDir(i);
      lastDataDir = dataDir;
      const run = await runRebuilder(script, [srcDir, dataDir, CTX, toDelete.join(',')], () => Math.floor(Math.random() * window));
      const ids = await idsIn(dataDir);
      const isOld = sameSet(ids, oldSet);
      const isNew = sameSet(ids, newSet);
      expect(isOld || isNew).toBe(true);
      outcomes.push(`${run.signal ?? 'exit'}@${run.killedAfterMs ?? '-'}ms:${isOld ? 'old' : 'new'}`);
    }
    // After a crash the lock is stale and a temp file may be left: the next delete cleans up and succeeds.
    await fs.rm(path.join(lastDataDir, 'projects', P, '.lock'), { recursive: true, force: true });
    const env = await makeKnowledgeEnv({}, lastDataDir);
    const present = await idsIn(lastDataDir);
    const victim = present.has(toDelete[0]!) ? toDelete[0]! : 'n0';
    const out = await env.del.execute({ projectContext: CTX, nodeIds: [victim] });
    expect(out.success).toBe(true);
    const leftovers = (await fs.readdir(path.join(lastDataDir, 'projects', P))).filter((f) => f.includes('.tmp-'));
    expect(leftovers).toEqual([]);
    if (process.env.KNOWLEDGE_CRASH_VERBOSE) process.stderr.write(`${outcomes.join(" ")}\n`);
    expect(outcomes).toHaveLength(ITERATIONS);
  }, Math.max(300_000, ITERATIONS * 20_000)); // a generous bound: about 2-3 s per kill on a loaded 2-core machine
});
