import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeKnowledgeEnv, type KnowledgeEnv } from './support/knowledge-env';
import { NODE_MODULES, transpileSrc } from './support/transpile-src';
import { APPENDER_JS, DELETER_JS } from './support/child-scripts';

const CTX = '/work/race-project';
const P = 'race-project';

function runNode(script: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, NODE_PATH: NODE_MODULES },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && stdout.includes('done') ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}

describe('concurrent writers on one knowledge graph', () => {
  let tmp: string;
  let srcDir: string;
  let env: KnowledgeEnv;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-knowledge-race-'));
    srcDir = transpileSrc(path.join(tmp, 'build'));
    await fs.writeFile(path.join(tmp, 'appender.js'), APPENDER_JS);
    await fs.writeFile(path.join(tmp, 'deleter.js'), DELETER_JS);
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));
  beforeEach(async () => {
    env = await makeKnowledgeEnv({}, path.join(tmp, `data-${Date.now()}`));
  });

  it('four processes appending 1,000 nodes each while a fifth deletes: nothing lost, no torn line', async () => {
    const seeds = Array.from({ length: 20 }, (_, i) => `seed-${i}`);
    await env.add.execute({ projectContext: CTX, nodes: seeds.map((id) => ({ id, thought: `seed ${id}`, role: 'actor' as const })) });

    // A second in-process store instance (its own object, same files) appends too.
    const other = await makeKnowledgeEnv({}, env.dataDir);
    const inProcess = (async () => {
      for (let i = 0; i < 50; i++) await other.add.execute({ projectContext: CTX, nodes: [{ id: `local-${i}`, thought: 't', role: 'critic' }] });
    })();

    const appenders = ['p0', 'p1', 'p2', 'p3'].map((prefix) =>
      runNode(path.join(tmp, 'appender.js'), [srcDir, env.dataDir, CTX, prefix, '1000', '10']),
    );
    const deleted = seeds.filter((_, i) => i % 2 === 0);
    const deleter = runNode(path.join(tmp, 'deleter.js'), [srcDir, env.dataDir, CTX, deleted.join(',')]);
    await Promise.all([...appenders, deleter, inProcess]);

    const raw = await fs.readFile(path.join(env.projectDir(P), 'knowledge_graph.ndjson'), 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const lines = raw.split('\n').filter((l) => l !== '');
    const ids = lines.map((l) => JSON.parse(l).id as string); // throws on any torn line
    expect(new Set(ids).size).toBe(ids.length);
    const present = new Set(ids);
    for (const prefix of ['p0', 'p1', 'p2', 'p3']) {
      for (let j = 0; j < 1000; j++) expect(present.has(`${prefix}-${j}`)).toBe(true);
    }
    for (let i = 0; i < 50; i++) expect(present.has(`local-${i}`)).toBe(true);
    for (const s of seeds) expect(present.has(s)).toBe(!deleted.includes(s));
    expect(ids).toHaveLength(4000 + 50 + seeds.length - deleted.length);

    const records = (await env.readLines(P, 'knowledge_graph.deleted.ndjson')).map((l) => JSON.parse(l).nodeId);
    expect(records.sort()).toEqual([...deleted].sort());
    // Each appender's chain is intact: every parent of a pN node exists.
    for (const l of lines) {
      const n = JSON.parse(l);
      for (const p of n.parents) expect(present.has(p)).toBe(true);
    }
  }, 180_000);
});
