import * as path from 'node:path';
import { container as rootContainer } from 'tsyringe';
import { silentLogger } from '../../../src/kernel/logger';
import type { McpClientPool } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import type { AppConfig } from '../../../src/kernel/config/app-config';
import { Lifecycle } from '../../../src/kernel/lifecycle';
import { mcpClientPoolModule } from '../../../src/modules/graph/mcp-client-pool.module';
import { Tokens } from '../../../src/kernel/tokens';
import { GraphTokens } from '../../../src/modules/graph';
import { isAlive } from '../../helpers/processes';

const FIXTURE = path.resolve(__dirname, '../../fixtures/mcp-servers/test-server.js');


describe('mcpClientPoolModule', () => {
  it('registers one shared pool whose servers are closed when the server shuts down', async () => {
    const c = rootContainer.createChildContainer();
    const lifecycle = new Lifecycle();
    c.registerInstance(Tokens.Logger, silentLogger);
    c.registerInstance(Tokens.Lifecycle, lifecycle);
    mcpClientPoolModule(c, { version: '9.9.9' } as AppConfig);

    const pool = c.resolve<McpClientPool>(GraphTokens.McpClientPool);
    expect(c.resolve<McpClientPool>(GraphTokens.McpClientPool)).toBe(pool);

    const server = { name: 'fixture', config: { command: process.execPath, args: [FIXTURE] } };
    const result = await pool.callTool(server, 'echo', { message: 'hi' });
    const pid = (result.structuredContent as { pid: number }).pid;
    expect(isAlive(pid)).toBe(true);

    await lifecycle.beginShutdown('test');
    expect(isAlive(pid)).toBe(false);
  });
});
