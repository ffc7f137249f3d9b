/**
 * A view's side of staying live (src/dashboard/web/src/views/live.ts): which resources to re-read from two answers of
 * the server's resource_changes tool, and the poll's jitter and backoff.
 */
import { mergeAnswers, pollDelay, staleResources, type ChangesAnswer } from '../../../src/dashboard/web/src/views/live';

const T = 'workgraph://projects/p/tasks';
const S = 'workgraph://sessions/0123456789abcdef';
const answer = (now: string, ...rs: Array<[string, string | null, string]>): ChangesAnswer => ({ now, resources: rs.map(([uri, changedAt, heardSince]) => ({ uri, changedAt, heardSince })) });

test('the first answer re-reads nothing: the view was just handed what it shows', () => {
  expect(staleResources(undefined, answer('t5', [T, 't3', 't0']))).toEqual([]);
});

test('rereadFirst: the first answer re-reads every resource, changed or not (a graph run may have ended before it, unheard)', () => {
  const R = 'workgraph://graph/runs/abc-1-2';
  expect(staleResources(undefined, answer('t5', [R, null, 't5']), true)).toEqual([R]);
  expect(staleResources(undefined, answer('t5', [R, 't3', 't0']), true)).toEqual([R]);
  // Later answers as always.
  expect(staleResources(answer('t5', [R, 't3', 't0']), answer('t7', [R, 't3', 't0']), true)).toEqual([]);
});

test('a change time that moved (or appeared) re-reads that resource only', () => {
  const before = answer('t5', [T, null, 't0'], [S, 't2', 't0']);
  expect(staleResources(before, answer('t7', [T, null, 't0'], [S, 't2', 't0']))).toEqual([]);
  expect(staleResources(before, answer('t7', [T, 't6', 't0'], [S, 't2', 't0']))).toEqual([T]);
  expect(staleResources(before, answer('t7', [T, null, 't0'], [S, 't6', 't0']))).toEqual([S]);
});

test('a server that hears the resource only since after the last answer (restarted, another instance, a lapsed watch) re-reads it', () => {
  const before = answer('t5', [T, 't2', 't0']);
  expect(staleResources(before, answer('t7', [T, null, 't6']))).toEqual([T]);
  // Another instance that has heard since before the last answer, and knows an older change only: nothing missed.
  expect(staleResources(before, answer('t7', [T, 't1', 't0']))).toEqual([]);
});

test('what is kept never moves a change time back (an instance that knows less)', () => {
  const kept = mergeAnswers(answer('t5', [T, 't4', 't0']), answer('t6', [T, null, 't0']));
  expect(kept).toEqual(answer('t6', [T, 't4', 't0']));
  expect(staleResources(kept, answer('t7', [T, 't4', 't0']))).toEqual([]);
});

test('polls are jittered around the base and back off on failures, up to 30 s', () => {
  expect(pollDelay(2_000, 0, () => 0)).toBe(1_600);
  expect(pollDelay(2_000, 0, () => 1)).toBe(2_400);
  expect(pollDelay(2_000, 2, () => 0.5)).toBe(8_000);
  expect(pollDelay(2_000, 20, () => 0.5)).toBe(30_000);
});
