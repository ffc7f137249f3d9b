import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startSharedCore, type SharedCore } from './shared-core';

/**
 * An answer the transport cannot serialize (longer than V8's longest string: its JSON.stringify throws RangeError) is
 * never silence: the client gets an error answer with the same id, and the server logs why. Built cheaply: the value's
 * toJSON works for the tool's own checks and throws V8's RangeError when the transport serializes the whole answer —
 * as a value just under a size limit does once the answer holds it twice.
 */
describe('an answer too large to send', () => {
  let shared: SharedCore;
  beforeEach(async () => {
    shared = await startSharedCore('wg-too-large-');
  });
  afterEach(() => shared.stop());

  it('is answered with an error carrying its id, and logged', async () => {
    let serializations = 0;
    const { core, host, logger } = shared;
    core.registry.replaceOrigin('test', [
      {
        name: 'huge_answer',
        description: 'an answer whose second serialization fails like one past the string limit',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        module: 'test',
        handler: async () => ({
          blob: {
            toJSON: () => {
              if (++serializations > 1) throw new RangeError('Invalid string length');
              return 'fits once';
            },
          },
        }),
      },
    ]);
    const logged: string[] = [];
    logger.addSink((level, msg) => logged.push(`${level} ${msg}`));
    const { server } = host.newSession();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // Serialize what is sent, as the stdio and HTTP transports do (the in-memory pair passes objects).
    const sendObject = serverSide.send.bind(serverSide);
    serverSide.send = async (message: JSONRPCMessage, options) => sendObject(JSON.parse(JSON.stringify(message)) as JSONRPCMessage, options);
    await server.connect(serverSide);
    const client = new Client({ name: 'too-large', version: '1.0.0' }, { capabilities: {} });
    await client.connect(clientSide);
    try {
      const r = (await client.callTool({ name: 'huge_answer', arguments: {} }, undefined, { timeout: 20_000 })) as {
        isError?: boolean;
        content: Array<{ text: string }>;
      };
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toMatch(/^internal_error: the answer is too large to send \(longer than the longest string this runtime can build, 512 MiB\)/);
      expect(logged.some((l) => /^error answer to request \d+ not sent: the answer is too large to send/.test(l))).toBe(true);
      // The session goes on.
      expect((await client.listTools()).tools.some((t) => t.name === 'huge_answer')).toBe(true);
    } finally {
      await client.close();
    }
  });
});
