import * as path from 'node:path';
import { container as root } from 'tsyringe';
import { graphModule } from '../../../src/modules/graph/graph.module';
import { GraphTokens } from '../../../src/modules/graph';
import type { AppConfig } from '../../../src/kernel/config/app-config';
import type { GraphHost } from '../../../src/modules/graph/infrastructure/graph-host';
import { FakeMcpClientPool } from '../application/graph/graph-test-kit';

describe('graphModule', () => {
  it('registers one GraphHost per container that calls mcp nodes through the registered pool', async () => {
    const c = root.createChildContainer();
    const pool = new FakeMcpClientPool(() => ({ structuredContent: { entries: [1, 2] } }));
    c.register(GraphTokens.McpClientPool, { useValue: pool });
    graphModule(c, {} as AppConfig);
    const host = c.resolve<GraphHost>(GraphTokens.GraphHost);
    expect(c.resolve<GraphHost>(GraphTokens.GraphHost)).toBe(host);
    await host.load(path.join(__dirname, '../../fixtures/graphs/older-format.yaml'));
    expect((await host.executeTool('older_list', { dir: '/x' }).promise).result).toEqual({ count: 2 });
    expect(pool.calls).toHaveLength(1);
  });
});
