/**
 * Completion ids: what the agent appends to `completedSteps`. Outside loops a step's completion id is its id; inside a
 * loop it is `loopId[i].stepId` with i counted from 0, and nested loops nest: `outer[0].inner[2].stepId`.
 */

/** One enclosing loop iteration of a completion id. */
export interface CompletionIdSegment {
  loopId: string;
  iteration: number;
}

export interface ParsedCompletionId {
  loops: CompletionIdSegment[];
  stepId: string;
}

/** The prefix the completion ids of one loop iteration start with: `<prefix><loopId>[<i>].`. */
export function iterationPrefix(loopCompletionId: string, iteration: number): string {
  return `${loopCompletionId}[${iteration}].`;
}

const SEGMENT = /^([^[\]]+)\[(\d+)\]$/;

/**
 * Splits `outer[0].inner[2].step` into its loops and step id; `undefined` when it is not of that shape. A plain id
 * (no `[`) parses as a step with no loops, dots and all, since ids outside loops are taken as written.
 */
export function parseCompletionId(completionId: string): ParsedCompletionId | undefined {
  if (!completionId.includes('[')) return { loops: [], stepId: completionId };
  const loops: CompletionIdSegment[] = [];
  let rest = completionId;
  for (;;) {
    const close = rest.indexOf('].');
    if (close < 0) break;
    const match = SEGMENT.exec(rest.slice(0, close + 1));
    if (!match) return undefined;
    loops.push({ loopId: match[1], iteration: Number(match[2]) });
    rest = rest.slice(close + 2);
  }
  if (rest === '' || rest.includes('[') || rest.includes(']')) return undefined;
  return { loops, stepId: rest };
}

/**
 * The highest iteration of the loop with this completion id that has any completion id in `completed`, or -1 when
 * none has started.
 */
export function highestStartedIteration(loopCompletionId: string, completed: readonly string[]): number {
  const start = `${loopCompletionId}[`;
  let highest = -1;
  for (const entry of completed) {
    if (!entry.startsWith(start)) continue;
    const close = entry.indexOf('].', start.length);
    if (close < 0) continue;
    const digits = entry.slice(start.length, close);
    if (!/^\d+$/.test(digits)) continue;
    const n = Number(digits);
    if (n > highest) highest = n;
  }
  return highest;
}
