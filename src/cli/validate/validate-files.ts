import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ValidateWorkflowJson } from '../../modules/workflow';
import { detectFileKind } from './detect-file-kind';
import { registeredGraphValidator } from './graph-validators';

/** One problem, printed by `workgraph validate` as `file:line:column: message`. Positions are 1-based. */
export interface FileProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  /** `warning`: printed, but the exit code stays 0 (a missing reference, a condition whose result depends on the format). */
  severity?: 'warning';
}

/** What `workgraph validate` learned about a workflow file besides its problems. */
export interface FileNote {
  file: string;
  message: string;
}

export interface ValidateFilesOptions {
  /** The workflow checker; default: built from the real schema and structure checks. */
  workflowValidator?: Pick<ValidateWorkflowJson, 'execute'>;
  /** Receives one line per workflow file: the format it was read as, and why. */
  onNote?: (note: FileNote) => void;
  /** The agent's workspace, for `workspace` references. Default: the current directory. */
  workspace?: string;
  /** Learns each file checked (a folder given stands for its files). */
  onChecked?: (file: string) => void;
}

/**
 * Checks each file and returns every problem, file by file in the order given. The kind of each file is told by its
 * content (see detectFileKind): workflows are checked like workflow_validate_json; graphs by the graph module's
 * registered checker. A missing or unreadable file is one problem naming it; the other files are still checked.
 */
export async function validateFiles(given: readonly string[], options: ValidateFilesOptions = {}): Promise<FileProblem[]> {
  const problems: FileProblem[] = [];
  const { files: paths, problems: folderProblems } = await expandFolders(given);
  let workflowValidator = options.workflowValidator;
  let lookupRoutine: ((id: string) => Record<string, unknown> | undefined) | undefined;
  for (const file of paths) {
    const at = (line: number, column: number, message: string) => problems.push({ file, line, column, message });
    const empty = folderProblems.get(file);
    if (empty) {
      at(1, 1, empty);
      continue;
    }
    options.onChecked?.(file);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      at(1, 1, err.code === 'ENOENT' ? 'file not found' : err.code === 'EISDIR' ? 'is a folder, not a file' : `cannot read the file (${err.code ?? err.message})`);
      continue;
    }
    const detected = detectFileKind(text, file);
    if (detected.syntax.length > 0) {
      for (const s of detected.syntax) at(s.line, s.column, s.message);
      continue;
    }
    if (detected.kind === 'workflow') {
      if (!detected.json) {
        at(1, 1, 'looks like a workflow (it has "steps") but is not JSON; workflow files are JSON');
        continue;
      }
      workflowValidator ??= await defaultWorkflowValidator();
      const { workflowRuntime } = await import('../../modules/workflow');
      lookupRoutine ??= await workflowRuntime().routineLookupFor(paths);
      const referenceBases = { file, workspace: options.workspace ?? process.cwd() };
      const result = await workflowValidator.execute({ workflowJson: text, lookupRoutine, referenceBases });
      for (const issue of result.issues) at(issue.line, issue.column, issue.path ? `${issue.path}: ${issue.message}` : issue.message);
      if (result.format) options.onNote?.({ file, message: `read as the ${result.format} workflow format (${result.formatReason})` });
      const warn = (line: number, column: number, message: string) => problems.push({ file, line, column, message, severity: 'warning' });
      for (const w of result.warnings ?? []) warn(w.line, w.column, `${w.path}: ${w.message}`);
    } else if (detected.kind === 'graph') {
      const graphValidator = registeredGraphValidator();
      if (!graphValidator) {
        at(1, 1, 'looks like a graph file, but graph validation is not available in this build; the file was not checked');
        continue;
      }
      for (const p of await graphValidator(file, text)) problems.push({ file, line: p.line, column: p.column, message: p.message, ...(p.severity ? { severity: p.severity } : {}) });
    } else {
      at(1, 1, 'neither a workflow (no "steps") nor a graph (no "tools", "nodes" or "server")');
    }
  }
  return sortedByLine(problems);
}

/** Each file's problems by line, then column (files stay in the order given; the sort is stable). */
function sortedByLine(problems: FileProblem[]): FileProblem[] {
  const order = new Map<string, number>();
  for (const p of problems) if (!order.has(p.file)) order.set(p.file, order.size);
  return [...problems].sort((a, b) => order.get(a.file)! - order.get(b.file)! || a.line - b.line || a.column - b.column);
}

const CHECKED = /\.(json|ya?ml)$/i;

/**
 * The files to check: each path given, a folder replaced by its `.json`, `.yaml` and `.yml` files (sorted, subfolders
 * too, hidden ones and node_modules left out). A folder with none is one problem saying so.
 */
async function expandFolders(given: readonly string[]): Promise<{ files: string[]; problems: Map<string, string> }> {
  const files: string[] = [];
  const problems = new Map<string, string>();
  for (const p of given) {
    const stat = await fs.stat(p).catch(() => undefined);
    if (!stat?.isDirectory()) {
      files.push(p);
      continue;
    }
    const found = (await fs.readdir(p, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile() && CHECKED.test(e.name))
      .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
      .filter((f) => !path.relative(p, f).split(path.sep).some((part) => part.startsWith('.') || part === 'node_modules'))
      .sort();
    if (found.length === 0) {
      files.push(p);
      problems.set(p, 'the folder holds no .json, .yaml or .yml file to check');
    }
    files.push(...found);
  }
  return { files, problems };
}

/** Built lazily: only a run that meets a workflow file pays for the schema compilation. */
async function defaultWorkflowValidator(): Promise<Pick<ValidateWorkflowJson, 'execute'>> {
  const { createWorkflowJsonValidator } = await import('./workflow-json-validator');
  return createWorkflowJsonValidator();
}
