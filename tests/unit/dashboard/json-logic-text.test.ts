import { jsonLogicText } from '../../../src/dashboard/web/src/json-logic-text';

/** Switch conditions on graph drawings, written as conditions instead of raw JSON Logic. */
describe('jsonLogicText', () => {
  it.each([
    [{ '<': [{ var: 'count' }, { var: 'n' }] }, 'count < n'],
    [{ '<': [{ var: '$.increment_node.counter' }, { var: '$.increment_node.target' }] }, 'increment_node.counter < increment_node.target'],
    [{ '==': [{ var: 'status' }, 'done'] }, 'status == "done"'],
    [{ and: [{ '>=': [{ var: 'a' }, 1] }, { or: [{ var: 'b' }, { '!': { var: 'c' } }] }] }, 'a ≥ 1 and (b or not c)'],
    [{ '<=': [0, { var: 'x' }, 10] }, '0 ≤ x ≤ 10'],
    [{ '*': [{ '+': [{ var: 'a' }, 1] }, 2] }, '(a + 1) × 2'],
    [{ if: [{ var: 'a' }, 'yes', 'no'] }, 'if a then "yes" else "no"'],
    [{ in: ['x', { var: 'list' }] }, '"x" in list'],
    [{ some_op: [1, 2] }, 'some_op(1, 2)'],
    [true, 'true'],
  ])('%j → %s', (rule, text) => expect(jsonLogicText(rule)).toBe(text));
});
