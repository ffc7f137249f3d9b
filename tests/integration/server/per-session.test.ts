import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import type { PinoLogger } from '../../../src/kernel/logging/pino-logger';
import type { ServerHost } from '../../../src/server/run-server';
import type { ServerCore } from '../../../src/server/server-core';
import { startSharedCore, type SharedCore } from './shared-core';

/**
 * One MCP server per client session over one shared core (issue 10): two sessions in one process, over in-memory
 * transports, each with its own client roots (trust boundary), log level and tool-list listener; closing one removes
 * what it registered on the shared core.
 */
describe('per-session MCP servers over one shared core', () => {
  let tmp: string;
  let core: ServerCore;
  let host: ServerHost;
  let logger: PinoLogger;
  const sinks = () => (logger as unknown as { sinks: Set<unknown> }).sinks.size;
  const listeners = () => (core.registry as unknown as { listeners: Set<unknown> }).listeners.size;

  let shared: SharedCore;

  beforeEach(async () => {
    shared = await startSharedCore('wg-sessions-', ['alpha', 'beta']);
    ({ tmp, core, host, logger } = shared);
  });
  afterEach(() => shared.stop());

  async function connect(root: string, opts: { isolateLogs?: boolean } = {}): Promise<{ client: Client; close: () => Promise<void> }> {
    const { server } = host.newSession(opts);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: `client-${path.basename(root)}`, version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(root).href, name: path.basename(root) }] }));
    await client.connect(clientSide);
    return { client, close: () => client.close() };
  }

  const init = (client: Client, name: string, projectRoot: string) =>
    client.callTool({ name: 'init_project_graph', arguments: { projectName: name, projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: 'true' }] } });

  it('each session is confined to its own client roots', async () => {
    const a = await connect(path.join(tmp, 'alpha'));
    const b = await connect(path.join(tmp, 'beta'));
    try {
      const aOwn = await init(a.client, 'alpha-proj', path.join(tmp, 'alpha'));
      expect(aOwn.isError).toBeFalsy();
      const bOwn = await init(b.client, 'beta-proj', path.join(tmp, 'beta'));
      expect(bOwn.isError).toBeFalsy();
      // Each one's root is refused to the other, whichever asked last.
      const aIntoB = await init(a.client, 'x1', path.join(tmp, 'beta'));
      expect(aIntoB.isError).toBe(true);
      expect(JSON.stringify(aIntoB.content)).toContain('path_not_allowed');
      const bIntoA = await init(b.client, 'x2', path.join(tmp, 'alpha'));
      expect(bIntoA.isError).toBe(true);
      expect(JSON.stringify(bIntoA.content)).toContain('path_not_allowed');
      // And the first session's boundary did not move when the second one connected.
      expect((await init(a.client, 'alpha-again', path.join(tmp, 'alpha'))).isError).toBeFalsy();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('log level is per session; tools/list_changed reaches every session; closing a session removes its listeners', async () => {
    const baseSinks = sinks();
    const baseListeners = listeners();
    const a = await connect(path.join(tmp, 'alpha'));
    const b = await connect(path.join(tmp, 'beta'));
    expect(sinks()).toBe(baseSinks + 2);
    expect(listeners()).toBe(baseListeners + 2);

    const logsA: string[] = [];
    const logsB: string[] = [];
    a.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logsA.push(n.params.level));
    b.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logsB.push(n.params.level));
    let changedA = 0;
    let changedB = 0;
    a.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changedA++);
    b.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changedB++);

    await a.client.setLoggingLevel('debug');
    await b.client.setLoggingLevel('error');
    logger.info('hello sessions');
    logger.error('bad thing');
    core.registry.register([{ ...core.registry.list()[0], name: 'extra_tool' }], 'test');
    const until = async (cond: () => boolean) => {
      for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
    };
    await until(() => logsA.length >= 2 && logsB.length >= 1 && changedA >= 1 && changedB >= 1);
    expect(logsA).toEqual(['info', 'error']);
    expect(logsB).toEqual(['error']);
    expect(changedA).toBe(1);
    expect(changedB).toBe(1);

    await a.close();
    await until(() => sinks() === baseSinks + 1);
    expect(sinks()).toBe(baseSinks + 1);
    expect(listeners()).toBe(baseListeners + 1);
    await b.close();
    await until(() => sinks() === baseSinks);
    expect(sinks()).toBe(baseSinks);
    expect(listeners()).toBe(baseListeners);
  });

  it("a session's log entries reach its own client only, the process's own entries every client (HTTP sessions)", async () => {
    const a = await connect(path.join(tmp, 'alpha'), { isolateLogs: true });
    const b = await connect(path.join(tmp, 'beta'), { isolateLogs: true });
    const seen = { a: [] as string[], b: [] as string[] };
    a.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void seen.a.push(JSON.stringify(n.params.data)));
    b.client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void seen.b.push(JSON.stringify(n.params.data)));
    await a.client.setLoggingLevel('debug');
    await b.client.setLoggingLevel('debug');
    try {
      const call = async (client: Client, name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args });
        expect(r.isError).toBeFalsy();
      };
      // A delete logs where its backup went (the project's name and the data path): session A's business only.
      await call(a.client, 'add_nodes', { projectContext: 'alpha-secret-plan', nodes: [{ id: 'n1', thought: 'a plan', role: 'actor' }] });
      await call(a.client, 'delete_nodes', { projectContext: 'alpha-secret-plan', nodeIds: ['n1'], reason: 'done' });
      logger.info('process-wide entry');
      const until = async (cond: () => boolean) => {
        for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
      };
      await until(() => seen.a.some((l) => l.includes('alpha-secret-plan')) && seen.b.some((l) => l.includes('process-wide')));
      expect(seen.a.some((l) => l.includes('alpha-secret-plan'))).toBe(true);
      expect(seen.b.some((l) => l.includes('process-wide entry'))).toBe(true);
      expect(seen.a.some((l) => l.includes('process-wide entry'))).toBe(true);
      expect(seen.b.filter((l) => l.includes('alpha-secret-plan'))).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
