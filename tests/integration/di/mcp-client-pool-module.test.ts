import * as path from 'node:path';
import { container as rootContainer } from 'tsyringe';
import { silentLogger } from '../../../src/application/ports/logger';
import type { McpClientPool } from '../../../src/application/ports/mcp-client-pool';
import type { AppConfig } from '../../../src/infrastructure/config/app-config';
import { Lifecycle } from '../../../src/infrastructure/lifecycle/lifecycle';
import { mcpClientPoolModule } from '../../../src/di/modules/mcp-client-pool-module';
import { Tokens } from '../../../src/di/tokens';
import { isAlive } from '../../helpers/processes';

const FIXTURE = path.resolve(__dirname, '../../fixtures/mcp-servers/test-server.js');


describe('mcpClientPoolModule', () => {
  it('registers one shared pool whose servers are closed when the server shuts down', async () => {
    const c = rootContainer.createChildContainer();
    const lifecycle = new Lifecycle();
    c.registerInstance(Tokens.Logger, silentLogger);
    c.registerInstance(Tokens.Lifecycle, lifecycle);
    mcpClientPoolModule(c, { version: '9.9.9' } as AppConfig);

    const pool = c.resolve<McpClientPool>(Tokens.McpClientPool);
    expect(c.resolve<McpClientPool>(Tokens.McpClientPool)).toBe(pool);

    const server = { name: 'fixture', config: { command: process.execPath, args: [FIXTURE] } };
    const result = await pool.callTool(server, 'echo', { message: 'hi' });
    const pid = (result.structuredContent as { pid: number }).pid;
    expect(isAlive(pid)).toBe(true);

    await lifecycle.beginShutdown('test');
    expect(isAlive(pid)).toBe(false);
  });
});
