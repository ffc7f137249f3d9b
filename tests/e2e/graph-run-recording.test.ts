/**
 * How many graph runs a server records per tool in the data dir (what the dashboard shows): `--graph-runs-keep`,
 * the config file's `graphRunsKeep`, WORKGRAPH_GRAPH_RUNS_KEEP; 0 records none.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';
import { SUM_TO_N } from './helpers/dashboard-seed';

jest.setTimeout(120_000);

/** The run files of `tool` once `count` are there (recording happens after the run's answer, off the hot path). */
async function recordedRuns(dataDir: string, tool: string, count: number): Promise<string[]> {
  const dir = path.join(dataDir, 'graph-runs', tool);
  const list = (): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json') && !f.endsWith('.summary.json')) : []);
  const end = Date.now() + 30_000;
  while (list().length < count && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return list();
}

async function runSumToN(args: string[], env: Record<string, string>, times: number): Promise<string> {
  const data = tempDir('wg-runs-keep-');
  const mcp = await connectClient({ dataDir: data.dir, args: ['--graphs', SUM_TO_N, ...args], env });
  try {
    for (let i = 1; i <= times; i++) {
      const r = await mcp.client.callTool({ name: 'sum_to_n', arguments: { n: i } });
      expect(r.isError).toBeFalsy();
    }
  } finally {
    await mcp.close();
  }
  return data.dir;
}

test('the config file keeps the last 2 runs of a tool; the flag beats it; 0 records none', async () => {
  const cfg = tempDir('wg-runs-keep-cfg-');
  const file = path.join(cfg.dir, 'workgraph.yaml');
  fs.writeFileSync(file, 'graphRunsKeep: 2\n');
  const dirs: string[] = [];
  try {
    dirs.push(await runSumToN(['--config', file], {}, 4));
    expect(await recordedRuns(dirs[0], 'sum_to_n', 2)).toHaveLength(2);

    dirs.push(await runSumToN(['--config', file, '--graph-runs-keep', '3'], {}, 4));
    expect(await recordedRuns(dirs[1], 'sum_to_n', 3)).toHaveLength(3);

    // The server has closed (its records are written before it exits): none were written.
    dirs.push(await runSumToN([], { WORKGRAPH_GRAPH_RUNS_KEEP: '0' }, 2));
    expect(fs.existsSync(path.join(dirs[2], 'graph-runs', 'sum_to_n')) ? fs.readdirSync(path.join(dirs[2], 'graph-runs', 'sum_to_n')) : []).toEqual([]);
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    cfg.cleanup();
  }
});

test('a malformed value is one line naming the flag, and the server does not start', async () => {
  const data = tempDir('wg-runs-keep-bad-');
  try {
    await expect(connectClient({ dataDir: data.dir, args: ['--graph-runs-keep', 'many'] })).rejects.toThrow();
  } finally {
    data.cleanup();
  }
});
