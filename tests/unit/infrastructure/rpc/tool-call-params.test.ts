import { ProtocolError } from '@modelcontextprotocol/server';
import { toolCallParams } from '../../../../src/server/tool-call-params';

describe('tools/call params', () => {
  test('name and arguments come through; arguments may be absent', () => {
    expect(toolCallParams({ name: 'workflow_list', arguments: { a: 1 }, _meta: { progressToken: 3 } })).toEqual({ name: 'workflow_list', arguments: { a: 1 } });
    expect(toolCallParams({ name: 'workflow_list' })).toEqual({ name: 'workflow_list' });
  });

  test.each([
    [undefined, 'params: expected an object, got nothing'],
    [[1], 'params: expected an object, got an array'],
    [{}, 'name: expected a string, got nothing'],
    [{ name: 5 }, 'name: expected a string, got a number'],
    [{ name: null }, 'name: expected a string, got null'],
    [{ name: 'x', arguments: [1] }, 'arguments: expected an object, got an array'],
    [{ name: 'x', arguments: 'a' }, 'arguments: expected an object, got a string'],
    [{ name: 'x', _meta: 5 }, '_meta: expected an object, got a number'],
    [{ name: 'x', _meta: { progressToken: {} } }, '_meta.progressToken: expected a string or a number, got an object'],
  ])('%j → -32602 naming the field', (params, message) => {
    let thrown: unknown;
    try {
      toolCallParams(params);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect((thrown as ProtocolError).code).toBe(-32602);
    expect((thrown as ProtocolError).message).toContain(`Invalid params for tools/call: ${message}`);
  });
});
