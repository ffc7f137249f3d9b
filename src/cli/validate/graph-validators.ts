/** One problem in a file, positions 1-based. */
export interface FilePosition {
  line: number;
  column: number;
}

export interface FileProblemAt extends FilePosition {
  message: string;
  /** `warning`: printed, but the file still passes (a graph file with no tools). */
  severity?: 'warning';
}

/**
 * Checks one graph file (YAML or JSON) and returns every problem with its position; an empty array means valid.
 * `file` is the path as given on the command line; `text` its content (already read).
 */
export type GraphValidator = (file: string, text: string) => Promise<FileProblemAt[]> | FileProblemAt[];

let graphValidator: GraphValidator | undefined;

/**
 * Plugs in the graph module's file checker for `workgraph validate`. The graph module calls this from a module that
 * `src/cli/validate/index.ts` imports; the last registration wins (`undefined` removes it).
 */
export function registerGraphValidator(fn: GraphValidator | undefined): void {
  graphValidator = fn;
}

/** The registered graph checker, if any. */
export function registeredGraphValidator(): GraphValidator | undefined {
  return graphValidator;
}
