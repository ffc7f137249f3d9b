import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineTransport } from '../../../../src/server/line-transport';

function setup(opts = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: string[] = [];
  output.on('data', (d: Buffer) => written.push(...d.toString().split('\n').filter(Boolean)));
  const transport = new LineTransport(input, output, opts);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => received.push(m);
  let closed = 0;
  transport.onclose = () => closed++;
  return { input, output, transport, received, written: () => written.map((l) => JSON.parse(l)), closed: () => closed };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('LineTransport', () => {
  it('delivers requests split across chunks and several per chunk, with CRLF endings', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"met');
    t.input.write('hod":"ping"}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await tick();
    expect(t.received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('answers unparseable lines with -32700 and id null', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('{nope\n');
    await tick();
    expect(t.written()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } }]);
    expect(t.received).toHaveLength(0);
  });

  it.each([
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', null],
    ['a number', '7', null],
    ['wrong version with id', '{"jsonrpc":"1.0","id":5,"method":"ping"}', 5],
    ['boolean id', '{"jsonrpc":"2.0","id":true,"method":"ping"}', null],
    ['array params', '{"jsonrpc":"2.0","id":"a","method":"ping","params":[]}', 'a'],
    ['no method, no result', '{"jsonrpc":"2.0","id":9}', 9],
    ['numeric method', '{"jsonrpc":"2.0","id":3,"method":3}', 3],
  ])('answers %s with -32600 and the id when usable', async (_name, line, id) => {
    const t = setup();
    await t.transport.start();
    t.input.write(line + '\n');
    await tick();
    expect(t.written()).toEqual([{ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringContaining('Invalid Request') } }]);
    expect(t.received).toHaveLength(0);
  });

  it('skips an oversized line with -32600 and goes on with the next', async () => {
    const t = setup({ maxLineBytes: 64 });
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + 'x'.repeat(50));
    t.input.write('x'.repeat(100) + '"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(t.written()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('64 bytes') } }]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('refuses nesting deeper than the bound, ignoring brackets inside strings', async () => {
    const t = setup({ maxDepth: 5 });
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[[[[[]]]]]}}\n');
    t.input.write('{"jsonrpc":"2.0","id":2,"method":"x","params":{"a":"[[[[[[[[[[\\"[["}}\n');
    await tick();
    expect(t.written()).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: expect.stringContaining('nested') } }]);
    expect(t.received).toHaveLength(1);
  });

  it.each([
    ['id first', '{"jsonrpc":"2.0","id":"req-7","method":"x","params":{"a":DEEP}}', 'req-7'],
    ['id after the deep part', '{"jsonrpc":"2.0","method":"x","params":{"id":99,"a":DEEP},"id":42}', 42],
    ['escaped key and spaces', '{ "jsonrpc":"2.0", "\\u0069d" : -3.5e2 , "method":"x","params":DEEP}', -350],
    ['an "id" inside a string is not a key', '{"jsonrpc":"2.0","method":"x","params":{"s":"\\"id\\":5","a":DEEP}}', null],
    ['a nested id only', '{"jsonrpc":"2.0","method":"x","params":{"id":5,"a":DEEP}}', null],
    ['an object id', '{"jsonrpc":"2.0","id":{"x":1},"method":"x","params":DEEP}', null],
  ])('answers a request nested too deep with its own id (%s)', async (_name, template, id) => {
    const t = setup({ maxDepth: 5 });
    await t.transport.start();
    t.input.write(template.replace('DEEP', '[[[[[[[1]]]]]]]') + '\n');
    await tick();
    expect(t.written()).toEqual([{ jsonrpc: '2.0', id, error: { code: -32600, message: expect.stringContaining('nested deeper than 5') } }]);
    expect(t.received).toHaveLength(0);
  });

  it('passes client responses and notifications through', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":"s1","result":{}}\n{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n');
    await tick();
    expect(t.received).toHaveLength(2);
  });

  it('closes once when input ends', async () => {
    const t = setup();
    await t.transport.start();
    t.input.end();
    await tick();
    await tick();
    expect(t.closed()).toBe(1);
    await t.transport.close();
    expect(t.closed()).toBe(1);
  });

  it('closes instead of throwing when the output breaks', async () => {
    const t = setup();
    await t.transport.start();
    t.output.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await tick();
    await expect(t.transport.send({ jsonrpc: '2.0', id: 1, result: {} })).resolves.toBeUndefined();
    expect(t.closed()).toBe(1);
  });
});
