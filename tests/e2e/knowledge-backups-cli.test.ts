import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, connectClient, tempDir } from './helpers/server-process';

/**
 * `workgraph knowledge backups PROJECT` and `workgraph knowledge restore-backup ID` on a data dir written by the built
 * server through the SDK client: the backup a delete answered is listed and brings the deleted nodes back, without
 * touching what was added since.
 */
function cli(args: string[]) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('workgraph knowledge backups / restore-backup (built CLI, files)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => (tmp = tempDir('wg-e2e-kbackup-')));
  afterAll(() => tmp.cleanup());

  it('lists the backup a delete took and restores its deleted nodes, leaving later nodes as they are', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const conn = await connectClient({ dataDir });
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await conn.client.callTool({ name, arguments: args })) as CallToolResult;
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
      return r.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    let backupPath: string;
    try {
      await call('add_nodes', { projectContext: 'demo', nodes: [{ id: 'root', thought: 'root', role: 'actor' }, { id: 'leaf1', thought: 'one', role: 'actor', parents: ['root'] }, { id: 'leaf2', thought: 'two', role: 'critic', parents: ['root'] }] });
      const del = await call('delete_nodes', { projectContext: 'demo', nodeIds: ['leaf1', 'leaf2'], reason: 'cli test' });
      expect(del.success).toBe(true);
      backupPath = del.backupPath;
      await call('add_nodes', { projectContext: 'demo', nodes: [{ id: 'later', thought: 'added after the delete', role: 'actor', parents: ['root'] }] });
    } finally {
      await conn.close();
    }

    const listed = cli(['knowledge', 'backups', 'demo', '--data-dir', dataDir, '--json']);
    expect(listed.code).toBe(0);
    const backups = JSON.parse(listed.stdout).backups as Array<{ id: string; path: string }>;
    expect(backups).toHaveLength(1);
    expect(backups[0]!.path).toBe(backupPath);
    expect(cli(['knowledge', 'backups', 'demo', '--data-dir', dataDir]).stdout).toContain(backups[0]!.id);

    const restored = cli(['knowledge', 'restore-backup', backups[0]!.id, '--data-dir', dataDir, '--json']);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const out = JSON.parse(restored.stdout);
    expect(out.restoredNodeIds.sort()).toEqual(['leaf1', 'leaf2']);
    expect(out.alreadyPresent).toBe(1);
    const graph = fs.readFileSync(path.join(dataDir, 'projects', 'demo', 'knowledge_graph.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id);
    expect(graph.sort()).toEqual(['later', 'leaf1', 'leaf2', 'root']);
    expect(fs.readFileSync(path.join(dataDir, 'projects', 'demo', 'knowledge_graph.deleted.ndjson'), 'utf8').trim()).toBe('');

    // Restoring again finds nothing missing; the backup path itself is accepted as the id.
    const again = cli(['knowledge', 'restore-backup', backupPath, '--data-dir', dataDir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to restore');

    const bad = cli(['knowledge', 'restore-backup', 'demo/nope.ndjson', '--data-dir', dataDir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain("knowledge backup 'demo/nope.ndjson' not found");
  }, 60_000);
});
