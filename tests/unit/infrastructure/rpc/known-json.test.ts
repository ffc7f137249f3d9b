import { rememberJson, stringifyMessage } from '../../../../src/server/known-json';

/** The stdio transport writes a tool answer's structuredContent from the JSON the dispatcher already made. */
describe('stringifyMessage', () => {
  const value = { step: { id: 's', title: 'T "quoted"\n' }, guidance: { prompt: 'line 1\nline 2 \u2028 é' }, isComplete: false, context: {} };

  test('is JSON.stringify for messages without a remembered answer', () => {
    for (const m of [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }, { jsonrpc: '2.0', id: 'x', error: { code: -1, message: 'no' } }]) {
      expect(stringifyMessage(m)).toBe(JSON.stringify(m));
    }
  });

  test('gives the same text as JSON.stringify when it reuses the remembered JSON', () => {
    const remembered = { ...value };
    const text = rememberJson(remembered, JSON.stringify(remembered));
    const message = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text }], structuredContent: remembered, skipped: undefined, _meta: { 'workgraph/retryable': true } } };
    expect(stringifyMessage(message)).toBe(JSON.stringify(message));
    expect(JSON.parse(stringifyMessage(message)).result.structuredContent).toEqual(value);
  });

  test('does use the remembered JSON (the value is serialized once)', () => {
    const remembered = { a: 1 };
    rememberJson(remembered, '{"a":"remembered"}');
    const out = JSON.parse(stringifyMessage({ jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: remembered } }));
    expect(out.result.structuredContent).toEqual({ a: 'remembered' });
  });

  test('primitives are not remembered (and do not throw)', () => {
    expect(rememberJson(5, '5')).toBe('5');
    expect(rememberJson(null, 'null')).toBe('null');
  });
});
