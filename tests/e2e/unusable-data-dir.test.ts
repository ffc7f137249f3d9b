import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * A data dir that cannot be created and is not ENOTDIR — a path under Linux's /proc, where mkdir answers ENOENT
 * though the parent exists — answers every writing tool with storage_error naming the path. Before the fix Node's
 * recursive mkdir looped there forever: add_nodes never answered, and the server exited 20 s after stdin closed.
 * The calls' timeout is a liveness bound (a hang fails it), not a speed figure.
 */
const onLinux = fs.existsSync('/proc/self');
const UNUSABLE = '/proc/workgraph-cannot-exist/data';

(onLinux ? describe : describe.skip)('an unusable data dir (built server)', () => {
  it('answers each writing tool with storage_error naming the data dir, at once', async () => {
    const tmp = tempDir('wg-e2e-proc-');
    const root = path.join(tmp.dir, 'app');
    fs.mkdirSync(root);
    const conn = await connectClient({ dataDir: UNUSABLE, args: ['--allow-root', tmp.dir] });
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['add_nodes', { projectContext: 'demo', nodes: [{ thought: 'x', role: 'actor' }] }],
        ['workflow_start', { workflowId: 'review-change', context: {} }],
        ['init_project_graph', { projectName: 'demo', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] }],
      ];
      for (const [name, args] of calls) {
        const r = (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 10_000 })) as CallToolResult;
        const text = (r.content[0] as { text: string }).text;
        expect({ name, isError: r.isError, code: r._meta?.['workgraph/errorCode'] }).toEqual({ name, isError: true, code: 'storage_error' });
        expect(text).toContain('/proc/workgraph-cannot-exist');
      }
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  }, 60_000);
});
