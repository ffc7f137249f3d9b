import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Issue 4: two real built server processes sharing one data dir race `validate_task_loop` on the same IN_PROGRESS
 * node. DESIGN.md §2: every state change is a compare-and-swap inside the project's file lock, so exactly one
 * process records IN_PROGRESS → VALIDATING and runs the command; the other gets a clear error — `conflict` while
 * the winner's run is VALIDATING, or `invalid_transition` if it only reads the node after the verdict was written.
 */

type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROUNDS = 3;

function text(result: CallToolResult): string {
  return (result.content as Array<{ type: string; text: string }>)[0].text;
}

describe('validate_task_loop raced by two server processes (built server, SDK clients)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let projectRoot: string;
  let dataDir: string;
  let a: Conn;
  let b: Conn;

  beforeAll(async () => {
    tmp = tempDir('wg-e2e-tasks-race-');
    projectRoot = path.join(tmp.dir, 'project');
    dataDir = path.join(tmp.dir, 'data');
    fs.mkdirSync(projectRoot);
    const args = ['--allow-root', tmp.dir];
    [a, b] = await Promise.all([connectClient({ dataDir, args }), connectClient({ dataDir, args })]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    tmp.cleanup();
  });

  async function ok(conn: Conn, name: string, args: Record<string, unknown>): Promise<Structured> {
    const result = (await conn.client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
    return result.structuredContent as Structured;
  }

  it('exactly one process runs the command and gets the verdict; the other a clear error; files valid', async () => {
    // Each node's command leaves one line per run in its own counter file and takes about a second, so both calls
    // overlap the run whichever process wins the lock.
    const nodes = Array.from({ length: ROUNDS }, (_, i) => ({
      id: `n${i}`,
      title: `Node ${i}`,
      depends_on: [],
      validation_command: `echo "run $$" >> counter-${i}.txt && sleep 1`,
    }));
    await ok(a, 'init_project_graph', { projectName: 'Race', projectRoot, nodes });

    const winners: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const nodeId = `n${i}`;
      await ok(i % 2 ? b : a, 'start_task', { project: 'race', nodeId });
      // Alternate which request is sent first, so the test does not always favour one process.
      const order = i % 2 ? [b, a] : [a, b];
      const results = (await Promise.all(
        order.map((c) => c.client.callTool({ name: 'validate_task_loop', arguments: { project: 'race', nodeId } })),
      )) as CallToolResult[];

      // One call ran the command; the other was refused while it ran (conflict), or — when it arrived after the run
      // ended — was given that run's result, marked as a replay. Never a second run.
      const ran = results.filter((r) => !r.isError && (r.structuredContent as Structured).replayed === false);
      const others = results.filter((r) => r !== ran[0]);
      expect(ran).toHaveLength(1);
      expect(others).toHaveLength(1);
      const passed = ran;
      const answer = passed[0].structuredContent as Structured;
      expect(answer.validation_passed).toBe(true);
      expect(answer.result).toMatchObject({ exitCode: 0, signal: null });
      expect(answer.node).toMatchObject({ id: nodeId, status: 'COMPLETED', current_attempt: 1 });

      const other = others[0];
      if (other.isError) {
        const code = other._meta?.['workgraph/errorCode'];
        expect(code).toBe('conflict');
        const message = text(other);
        expect(message.startsWith(`${code}: `)).toBe(true);
        expect(message).toContain(`task '${nodeId}'`);
        expect(message).toMatch(/is VALIDATING since .* in another server process/);
        expect(message).not.toMatch(/\n\s+at /); // no stack trace
      } else {
        expect(other.structuredContent).toMatchObject({ validation_passed: true, replayed: true, attempt: 1 });
      }
      winners.push(results[0] === passed[0] ? 'first' : 'second');

      // Exactly one run of the command happened.
      const counter = fs.readFileSync(path.join(projectRoot, `counter-${i}.txt`), 'utf8');
      expect(counter.trim().split('\n')).toHaveLength(1);
    }

    // Both processes now see every node COMPLETED; calling again starts no new run.
    for (const conn of [a, b]) {
      const graph = await ok(conn, 'get_project_graph', { project: 'race' });
      expect((graph.nodes as Structured[]).map((n) => n.status)).toEqual(Array(ROUNDS).fill('COMPLETED'));
    }
    const again = (await b.client.callTool({ name: 'validate_task_loop', arguments: { project: 'race', nodeId: 'n0' } })) as CallToolResult;
    // The result is kept on the node: either process gives it again, marked as a replay.
    expect(again.structuredContent).toMatchObject({ validation_passed: true, replayed: true, attempt: 1 });
    for (let i = 0; i < ROUNDS; i++) {
      expect(fs.readFileSync(path.join(projectRoot, `counter-${i}.txt`), 'utf8').trim().split('\n')).toHaveLength(1);
    }

    // The files are valid: the graph parses with every node COMPLETED after one attempt, and the transition log
    // holds exactly one IN_PROGRESS → VALIDATING → COMPLETED sequence per node.
    const projectDir = path.join(dataDir, 'projects', 'race');
    const graph = JSON.parse(fs.readFileSync(path.join(projectDir, 'task_graph.json'), 'utf8')) as Structured;
    expect(graph.project_id).toBe('race');
    for (const n of graph.nodes as Structured[]) {
      expect(n).toMatchObject({ status: 'COMPLETED', current_attempt: 1, error_logs: [] });
    }
    // init, then per node start + begin_validation + the lease naming the command's process group + pass + the record
    // that its result was delivered.
    expect(graph.revision).toBe(5 * ROUNDS);
    const log = fs
      .readFileSync(path.join(projectDir, 'transitions.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Structured);
    for (let i = 0; i < ROUNDS; i++) {
      const moves = log.filter((t) => t.node === `n${i}` && t.from !== t.to).map((t) => `${t.from}>${t.to}`);
      expect(moves).toEqual(['READY>IN_PROGRESS', 'IN_PROGRESS>VALIDATING', 'VALIDATING>COMPLETED']);
    }
    expect(winners).toHaveLength(ROUNDS);
  }, 30_000);
});
