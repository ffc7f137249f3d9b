import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The one-write-path rule (docs/architecture.md "One write path"): outside src/kernel/files no source file writes a
 * file itself — no `write`/`appendFile`/`writeFile`/`createWriteStream`/`copyFile`/`truncate` of node:fs or a file
 * handle. Stores go through the kernel's checked helpers (appendFully/appendLines/writeFileAtomic/writeAll...), which
 * write every byte or fail with a storage_error naming the file.
 */

/** Calls that write a file, whatever the receiver (`fs.`, a handle, a destructured import). */
const FILE_WRITES = /\b(appendFile|appendFileSync|writeFile|writeFileSync|createWriteStream|writeSync|writev|writevSync|copyFile|copyFileSync|ftruncate|ftruncateSync|truncateSync|cp|cpSync)\s*\(/g;
/** `x.write(` / `x.truncate(` on a receiver that may be a file: only a few are not (see {@link ALLOWED_RECEIVERS}). */
const METHOD_WRITES = /([\w$.]+)\s*\.\s*(write|truncate)\s*\(/g;

/** Receivers of `.write(` that are never a data file, anywhere. */
const ALLOWED_RECEIVERS = new Set(['process.stdout', 'process.stderr', 'this']);

/**
 * Files whose `.write(` goes to a stream that is no data file, each with its reason. Keep this list short: a new
 * entry needs a reason a reviewer accepts.
 */
export const ALLOWED_FILES: Record<string, { receivers: string[]; reason: string }> = {
  'src/server/line-transport.ts': { receivers: ['this.output'], reason: 'the stdio MCP transport writes protocol messages to stdout' },
  'src/dashboard/http/sse-hub.ts': { receivers: ['res', 'c'], reason: 'server-sent events written to HTTP responses' },
};

/** Folders the rule does not cover: the write path itself, and browser code (no file system). */
export const EXEMPT = ['src/kernel/files/', 'src/dashboard/web/'];

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** The raw writes in one file's text, as `file:line: call`. */
export function rawWrites(file: string, text: string): string[] {
  const code = stripComments(text);
  const lineOf = (i: number) => code.slice(0, i).split('\n').length;
  const out: string[] = [];
  for (const m of code.matchAll(FILE_WRITES)) {
    // `x.cp(` / `cp(` is fs.cp only when called on fs or bare; a method of another object named like these is rare
    // enough to rename.
    out.push(`${file}:${lineOf(m.index!)}: ${m[1]}(`);
  }
  const allowed = ALLOWED_FILES[file]?.receivers ?? [];
  for (const m of code.matchAll(METHOD_WRITES)) {
    const receiver = m[1]!;
    if (ALLOWED_RECEIVERS.has(receiver) || allowed.includes(receiver)) continue;
    out.push(`${file}:${lineOf(m.index!)}: ${receiver}.${m[2]}(`);
  }
  return out;
}

/** Every .ts file of src/ the rule covers, relative to the repository. */
export function coveredSources(repo: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(repo, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.(ts|js|mjs|cjs)$/.test(e.name) && !EXEMPT.some((x) => rel.startsWith(x))) out.push(rel);
    }
  };
  walk('src');
  return out.sort();
}
