import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, RawServer, tempDir } from './helpers/server-process';

/** The built server over stdio: protocol errors, purity of stdout, plain methods, clean exit. */
describe('stdio protocol (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir();
  });
  afterAll(() => tmp.cleanup());

  describe('through the SDK client', () => {
    let conn: Awaited<ReturnType<typeof connectClient>>;
    beforeAll(async () => {
      conn = await connectClient({ dataDir: tmp.dir });
    });
    afterAll(async () => conn.close());

    it('lists tools, each with object input and output schemas and annotations', async () => {
      const { tools } = await conn.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['workflow_list', 'workflow_get', 'workflow_next', 'workflow_validate', 'workflow_validate_json', 'workflow_get_schema']),
      );
      for (const t of tools) {
        expect(t.name).toMatch(/^[a-zA-Z0-9_.-]{1,64}$/);
        expect(t.inputSchema.type).toBe('object');
        expect(t.outputSchema?.type).toBe('object');
        expect(t.description).toBeTruthy();
        expect(t.annotations).toBeDefined();
      }
    });

    it('answers bad tool arguments with an isError result naming the field', async () => {
      const result = await conn.client.callTool({ name: 'workflow_next', arguments: { workflowId: 'code-review', completedSteps: 'nope' } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const text = (result.content as Array<{ text: string }>)[0].text;
      expect(text).toMatch(/^invalid_arguments: /);
      expect(text).toContain('completedSteps');
      expect(result._meta?.['workgraph/errorCode']).toBe('invalid_arguments');
    });

    it('names a missing required field', async () => {
      const result = await conn.client.callTool({ name: 'workflow_get', arguments: {} });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0].text).toContain('id');
    });

    it('answers an unknown tool with -32602', async () => {
      await expect(conn.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    });

    it('answers an unknown method with -32601', async () => {
      const err = await conn.client.request({ method: 'no/such/method', params: {} }, EmptyResultSchema).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32601);
    });

    it('returns structuredContent and the same JSON as text', async () => {
      const result = await conn.client.callTool({ name: 'workflow_list', arguments: {} });
      expect(result.isError).toBeFalsy();
      const text = (result.content as Array<{ text: string }>)[0].text;
      expect(JSON.parse(text)).toEqual(result.structuredContent);
    });
  });

  describe('on raw pipes', () => {
    let raw: RawServer;
    afterEach(() => raw?.kill());

    it('answers garbage with -32700, bad frames with -32600, and keeps serving with pure stdout', async () => {
      raw = new RawServer({ dataDir: tmp.dir });
      raw.writeLine('this is not json');
      raw.writeLine('{"jsonrpc":"2.0","id":1,"method":"tools/list"'); // truncated
      raw.writeLine('[1,2,3]');
      raw.writeLine('42');
      raw.send({ jsonrpc: '1.0', id: 'v1', method: 'ping' });
      raw.send({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' });
      raw.send({ jsonrpc: '2.0', id: 'p', method: 'ping', params: [1] });
      await raw.initialize();
      raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const list = await raw.response(2);
      expect((list.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);

      const nullErrors = await raw.nullIdErrors(5);
      const codes = nullErrors.map((m) => (m.error as { code: number }).code);
      expect(codes.filter((c) => c === -32700)).toHaveLength(2);
      expect(codes.filter((c) => c === -32600)).toHaveLength(3);
      expect(((await raw.response('v1')).error as { code: number }).code).toBe(-32600);
      expect(((await raw.response('p')).error as { code: number }).code).toBe(-32600);
      for (const m of raw.messages()) expect(m.jsonrpc).toBe('2.0');
    });

    it('answers an oversized line with -32600 and goes on', async () => {
      raw = new RawServer({ dataDir: tmp.dir });
      const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'workflow_list', params: { pad: 'x'.repeat(17 * 1024 * 1024) } });
      raw.writeLine(big);
      raw.send({ jsonrpc: '2.0', id: 'after', method: 'workflow_list', params: {} });
      const after = await raw.response('after', 30_000);
      expect(after.result).toBeDefined();
      const errors = await raw.nullIdErrors(1);
      expect((errors[0].error as { code: number; message: string }).code).toBe(-32600);
      expect(raw.messages().some((m) => m.id === 'big')).toBe(false);
    });

    it('refuses deeply nested JSON with -32600 carrying the request\'s own id', async () => {
      raw = new RawServer({ dataDir: tmp.dir });
      raw.writeLine('{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}}');
      // The id may come after the deep part: it is still read from the top level.
      raw.writeLine('{"jsonrpc":"2.0","method":"ping","params":{"id":1,"a":' + '{"b":'.repeat(300) + '1' + '}'.repeat(300) + '},"id":77}');
      expect(((await raw.response('deep')).error as { code: number }).code).toBe(-32600);
      expect(((await raw.response(77)).error as { code: number; message: string }).message).toContain('nested deeper than 256');
      expect(raw.messages().some((m) => m.id === null)).toBe(false);
      raw.send({ jsonrpc: '2.0', id: 'ok', method: 'ping' });
      expect((await raw.response('ok')).result).toEqual({});
    });

    it('serves the workflow methods as plain JSON-RPC without initialize', async () => {
      raw = new RawServer({ dataDir: tmp.dir });
      raw.send({ jsonrpc: '2.0', id: 1, method: 'workflow_list', params: {} });
      const list = await raw.response(1);
      expect(Array.isArray((list.result as { workflows: unknown[] }).workflows)).toBe(true);

      raw.send({ jsonrpc: '2.0', id: 2, method: 'workflow_next', params: { workflowId: 42 } });
      const bad = (await raw.response(2)).error as { code: number; message: string };
      expect(bad.code).toBe(-32602);
      expect(bad.message).toContain('workflowId');

      raw.send({ jsonrpc: '2.0', id: 3, method: 'workflow_get', params: { id: 'does-not-exist' } });
      const missing = (await raw.response(3)).error as { code: number; data: { code: string } };
      expect(missing.code).toBe(-32000);
      expect(missing.data.code).toBe('not_found');

      raw.send({ jsonrpc: '2.0', id: 4, method: 'initialize_nope', params: {} });
      expect(((await raw.response(4)).error as { code: number }).code).toBe(-32601);
    });

    it('exits 0 when stdin ends', async () => {
      raw = new RawServer({ dataDir: tmp.dir });
      await raw.initialize();
      raw.child.stdin.end();
      const { code } = await raw.exited;
      expect(code).toBe(0);
      expect(raw.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });

    it('exits 0 when the client stops reading stdout (broken pipe)', async () => {
      raw = new RawServer({ dataDir: tmp.dir });
      await raw.initialize();
      raw.child.stdout.destroy();
      for (let i = 0; i < 50; i++) raw.send({ jsonrpc: '2.0', id: `x${i}`, method: 'workflow_list', params: {} });
      raw.child.stdin.end();
      const { code } = await raw.exited;
      expect(code).toBe(0);
    });

    it('writes a start line to stderr naming version, tools, workflows and data dir', async () => {
      raw = new RawServer({ dataDir: tmp.dir, env: { WORKGRAPH_LOG_LEVEL: 'info' } });
      await raw.initialize();
      const deadline = Date.now() + 10_000;
      while (!raw.stderr.includes('serving on stdio') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const first = raw.stderr.split('\n')[0];
      expect(first).toMatch(/workgraph \d+\.\d+\.\d+ serving on stdio: \d+ tools, \d+ workflows/);
      expect(first).toContain(tmp.dir);
    });
  });
});
