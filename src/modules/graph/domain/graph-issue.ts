import type { SourcePosition } from './types';

/**
 * One problem found while reading or checking a graph file. Collected rather than thrown, so `workgraph validate`
 * can report every problem; the loader turns the first one into an InvalidGraphError.
 */
export interface GraphIssue {
  message: string;
  tool?: string;
  node?: string;
  position?: SourcePosition;
  /** A bad expression: its text and where in it (0-based) the problem is, so the loader can point at that character. */
  expression?: { source: string; offset: number };
}

/** Path from the document root to a value: object keys and array indexes. */
export type DocPath = ReadonlyArray<string | number>;

/** Where a path points in the source file; undefined when unknown (e.g. a config built in memory). */
export type PositionLookup = (path: DocPath) => SourcePosition | undefined;

export const noPositions: PositionLookup = () => undefined;

/** `tool 'x', node 'y': message` — the prefix every graph message starts with. */
export function describeIssue(issue: GraphIssue): string {
  const where = [issue.tool !== undefined ? `tool '${issue.tool}'` : '', issue.node !== undefined ? `node '${issue.node}'` : '']
    .filter(Boolean)
    .join(', ');
  return where ? `${where}: ${issue.message}` : issue.message;
}
