import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * The knowledge resources through the built server and the SDK client: listed, readable, subscribable, and updated
 * on every change — by this server's own writes and by another server process on the same data dir.
 */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('workgraph://knowledge resources (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => (tmp = tempDir('wg-e2e-kres-')));
  afterAll(() => tmp.cleanup());

  it('lists, reads and notifies subscribers of every change', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const a = await connectClient({ dataDir });
    const b = await connectClient({ dataDir });
    const add = async (conn: typeof a, nodes: unknown[]) => {
      const r = (await conn.client.callTool({ name: 'add_nodes', arguments: { projectContext: 'demo', nodes } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
    };
    try {
      await add(a, [{ id: 'k1', thought: 'first thought', role: 'actor', tags: ['x'] }, { id: 'k2', thought: 'a review', role: 'critic', parents: ['k1'] }]);
      const listed = await a.client.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain('workgraph://knowledge/demo');
      const templates = await a.client.listResourceTemplates();
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(expect.arrayContaining(['workgraph://knowledge/{project}', 'workgraph://knowledge/{project}/nodes/{id}']));
      const overview = JSON.parse(((await a.client.readResource({ uri: 'workgraph://knowledge/demo' })).contents[0] as { text: string }).text);
      expect(overview).toMatchObject({ project: 'demo', nodes: 2, deleted: 0, roles: { actor: 1, critic: 1, summary: 0 } });
      expect(overview.recent.map((n: { id: string }) => n.id)).toEqual(['k2', 'k1']);
      const node = JSON.parse(((await a.client.readResource({ uri: 'workgraph://knowledge/demo/nodes/k1' })).contents[0] as { text: string }).text);
      expect(node.node.id).toBe('k1');
      expect(node.neighbours.children.map((c: { id: string }) => c.id)).toEqual(['k2']);
      await expect(a.client.readResource({ uri: 'workgraph://knowledge/demo/nodes/nope' })).rejects.toThrow(/not found/);

      const updated: string[] = [];
      a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updated.push(n.params.uri));
      await a.client.subscribeResource({ uri: 'workgraph://knowledge/demo' });
      await a.client.subscribeResource({ uri: 'workgraph://knowledge/demo/nodes/k1' });
      // This server's own write.
      await add(a, [{ id: 'k3', thought: 'second thought', role: 'actor', parents: ['k1'] }]);
      await until(() => updated.includes('workgraph://knowledge/demo') && updated.includes('workgraph://knowledge/demo/nodes/k1'));
      // Another process's write.
      updated.length = 0;
      await add(b, [{ id: 'k4', thought: 'from the other server', role: 'summary', summarizedSegment: ['k1'] }]);
      await until(() => updated.includes('workgraph://knowledge/demo'));
      const after = JSON.parse(((await a.client.readResource({ uri: 'workgraph://knowledge/demo' })).contents[0] as { text: string }).text);
      expect(after.nodes).toBe(4);
      expect(after.roles.summary).toBe(1);
      await a.client.unsubscribeResource({ uri: 'workgraph://knowledge/demo' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
