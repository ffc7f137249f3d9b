import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Issue 6 / DESIGN.md §3: a relative `--data-dir` (or WORKGRAPH_DATA_DIR) resolves against the server's working
 * directory, and the flag beats the variable. Proven by where add_nodes and init_project_graph put their files.
 */

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(dir, f)).isFile());
}

describe('relative data dir (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let cwd: string;
  let decoy: string;

  beforeEach(() => {
    tmp = tempDir('wg-e2e-data-dir-');
    cwd = path.join(tmp.dir, 'work');
    decoy = path.join(tmp.dir, 'decoy');
    fs.mkdirSync(cwd);
  });
  afterEach(() => tmp.cleanup());

  async function addNode(conn: Awaited<ReturnType<typeof connectClient>>, thought: string): Promise<string> {
    const r = (await conn.client.callTool({
      name: 'add_nodes',
      arguments: { projectContext: '/repos/rel-app', nodes: [{ id: 'n1', thought, role: 'actor' }] },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    return (r.structuredContent as Structured).project as string;
  }

  it('--data-dir state/wg lands in <cwd>/state/wg/projects/..., beating WORKGRAPH_DATA_DIR', async () => {
    // connectClient sets WORKGRAPH_DATA_DIR to the decoy; the relative flag must win and resolve against cwd.
    const conn = await connectClient({ dataDir: decoy, cwd, args: ['--data-dir', 'state/wg', '--allow-root', tmp.dir] });
    try {
      expect(await addNode(conn, 'relative flag')).toBe('rel-app');
      const init = (await conn.client.callTool({
        name: 'init_project_graph',
        arguments: { projectName: 'Rel Tasks', projectRoot: cwd, nodes: [{ id: 'a', title: 'A', depends_on: [] }] },
      })) as CallToolResult;
      expect(init.isError).toBeFalsy();
    } finally {
      await conn.close();
    }
    const projects = path.join(cwd, 'state', 'wg', 'projects');
    const line = JSON.parse(fs.readFileSync(path.join(projects, 'rel-app', 'knowledge_graph.ndjson'), 'utf8').trim()) as Structured;
    expect(line).toMatchObject({ id: 'n1', thought: 'relative flag', project: 'rel-app' });
    expect(JSON.parse(fs.readFileSync(path.join(projects, 'rel-tasks', 'task_graph.json'), 'utf8'))).toMatchObject({ project_id: 'rel-tasks' });
    expect(listFiles(decoy)).toEqual([]);
    // Nothing landed relative to the test runner's own working directory.
    expect(fs.existsSync(path.join(process.cwd(), 'state', 'wg'))).toBe(false);
  }, 20_000);

  it('a relative WORKGRAPH_DATA_DIR resolves against cwd too', async () => {
    const conn = await connectClient({ dataDir: 'env-data', cwd });
    try {
      await addNode(conn, 'relative variable');
    } finally {
      await conn.close();
    }
    expect(listFiles(path.join(cwd, 'env-data'))).toContain(path.join('projects', 'rel-app', 'knowledge_graph.ndjson'));
    expect(fs.existsSync(path.join(process.cwd(), 'env-data'))).toBe(false);
  }, 20_000);
});
