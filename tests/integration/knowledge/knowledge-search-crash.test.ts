import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_MODULES, transpileSrc } from './support/transpile-src';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { SEARCH_DIR } from '../../../src/modules/knowledge/infrastructure/search-index/search-index';

/**
 * A writer SIGKILLed at random moments while it adds nodes (between the graph append and the tail record, with the
 * tail not flushed, inside the segment write, the merge, the manifest write — wherever the kill lands; each step's kill
 * is also made deterministic in knowledge-search-kill-points.test.ts): a search afterwards answers exactly what a
 * search over a freshly built index answers.
 */
const ITERATIONS = Number(process.env.KNOWLEDGE_SEARCH_CRASH_ITERATIONS ?? 6);
const P = 'crashy';

const ADDER_JS = `
const [srcDir, dataDir] = process.argv.slice(2);
const { createNdjsonKnowledgeStore } = require(srcDir + '/modules/knowledge/infrastructure/ndjson-knowledge-store');
// The tail is written as segments every 16 nodes, so kills land in flushes and merges too.
const store = createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000 }, searchFlush: { nodes: 16 } });
const words = ['retry', 'backoff', 'cache', 'budget', 'parser', 'queue'];
(async () => {
  process.stdout.write('start\\n');
  for (let i = 0; ; i++) {
    const nodes = Array.from({ length: 1 + (i % 7) }, (_, k) => ({
      id: 'c' + process.pid + '-' + i + '-' + k, project: '${P}', projectContext: '${P}',
      thought: words[(i + k) % 6] + ' ' + words[(i * 3 + k) % 6] + ' note ' + i, role: 'actor', tags: [], artifacts: [], parents: [],
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }));
    await store.withLock('${P}', (g) => g.append(nodes));
  }
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\\n'); process.exit(1); });
`;

function runAndKill(script: string, args: string[], afterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, NODE_PATH: NODE_MODULES }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), afterMs));
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`adder exited ${code}: ${stderr}`))));
  });
}

describe('search after a writer is SIGKILLed mid-add', () => {
  let tmp: string;
  let srcDir: string;
  let script: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-crash-'));
    srcDir = transpileSrc(path.join(tmp, 'build'));
    script = path.join(tmp, 'adder.js');
    fs.writeFileSync(script, ADDER_JS);
  }, 120_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it(`answers as a fresh index would (${ITERATIONS} kills at random moments)`, async () => {
    const dataDir = path.join(tmp, 'data');
    for (let i = 0; i < ITERATIONS; i++) {
      await runAndKill(script, [srcDir, dataDir], 150 + Math.floor(Math.random() * 900));
      // The killed writer's lock goes stale after 2 s; a repair under the lock waits for that.
      const store = createNdjsonKnowledgeStore(dataDir, { lock: { staleMs: 2000, waitMs: 20_000 } });
      const search = async (query: string) => (await new SearchNodes(store).execute({ projectContext: P, query, limit: 100 })).hits.map((h) => `${h.id}:${h.score}`);
      const queries = ['retry', 'cache OR parser', '"budget queue"', 'note -backoff'];
      const got = [];
      for (const q of queries) got.push(await search(q));
      fs.rmSync(path.join(dataDir, 'projects', P, SEARCH_DIR), { recursive: true, force: true });
      const fresh = [];
      for (const q of queries) fresh.push(await search(q));
      expect(got).toEqual(fresh);
      expect(fresh[0]!.length).toBeGreaterThan(0);
    }
  }, 240_000);
});
