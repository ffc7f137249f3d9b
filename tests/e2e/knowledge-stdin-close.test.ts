import * as fs from 'node:fs';
import * as path from 'node:path';
import { RawServer, tempDir } from './helpers/server-process';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generateKnowledgeGraph } = require('../../bench/fixtures/knowledge-graph.js') as {
  generateKnowledgeGraph: (file: string, count: number, opts: { project: string; leafCount: number }) => Promise<{ leaves: string[] }>;
};

/**
 * The client closes stdin while a `delete_nodes` on a large graph is under way, round after round: the server finishes
 * (or never starts) the write before it exits, so no node is ever both in the graph and in the deleted file, and the
 * graph file stays whole. CI-sized here (20,000 nodes × 5 rounds); `npm run stress` runs the 150,000 × 20
 * (KNOWLEDGE_STDIN_NODES, KNOWLEDGE_STDIN_ROUNDS).
 */
const NODES = Number(process.env.KNOWLEDGE_STDIN_NODES ?? 20_000);
const ROUNDS = Number(process.env.KNOWLEDGE_STDIN_ROUNDS ?? 5);
const PROJECT = 'stdin-close';

describe(`stdin closed during delete_nodes (${NODES} nodes × ${ROUNDS} rounds)`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let leaves: string[];
  const graphFile = () => path.join(tmp.dir, 'projects', PROJECT, 'knowledge_graph.ndjson');
  const deletedFile = () => path.join(tmp.dir, 'projects', PROJECT, 'knowledge_graph.deleted.ndjson');

  beforeAll(async () => {
    tmp = tempDir('wg-e2e-stdin-close-');
    ({ leaves } = await generateKnowledgeGraph(graphFile(), NODES, { project: PROJECT, leafCount: ROUNDS * 2 }));
  });
  afterAll(() => tmp.cleanup());

  function ids(file: string, key: 'id' | 'nodeId'): string[] {
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)[key] as string); // a torn line would throw here
  }

  it('never leaves a node both in the graph and deleted', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const victims = leaves.slice(round * 2, round * 2 + 2);
      const server = new RawServer({ dataDir: tmp.dir });
      await server.initialize();
      server.send({
        jsonrpc: '2.0',
        id: 'del',
        method: 'tools/call',
        params: { name: 'delete_nodes', arguments: { projectContext: PROJECT, nodeIds: victims, reason: `round ${round}` } },
      });
      // Close stdin once the delete has started writing (its marker appears), at a different moment of the write each
      // round (backup, records, rebuild); every few rounds earlier, while it still reads.
      const marker = path.join(tmp.dir, 'projects', PROJECT, 'knowledge_graph.pending.json');
      if (round % 4 !== 3) {
        const deadline = Date.now() + 60_000;
        while (!fs.existsSync(marker) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
        await new Promise((r) => setTimeout(r, (round * 37) % 150));
      } else await new Promise((r) => setTimeout(r, 50));
      server.child.stdin.end();
      const exit = await Promise.race([server.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000))]);
      if (exit === 'timeout') server.kill();
      expect(exit).toEqual({ code: 0, signal: null });

      const inGraph = new Set(ids(graphFile(), 'id'));
      const deleted = ids(deletedFile(), 'nodeId');
      expect(deleted.filter((id) => inGraph.has(id))).toEqual([]);
      expect(fs.existsSync(path.join(tmp.dir, 'projects', PROJECT, 'knowledge_graph.pending.json'))).toBe(false);
      // Each victim is in exactly one place.
      for (const v of victims) expect(Number(inGraph.has(v)) + Number(deleted.includes(v))).toBe(1);
      outcomes.push(victims.every((v) => deleted.includes(v)) ? 'deleted' : 'kept');
    }
    process.stderr.write(`stdin-close outcomes: ${outcomes.join(" ")}\n`);
    expect(outcomes).toHaveLength(ROUNDS);
  }, 60_000 + ROUNDS * 150_000);
});
