import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, CLI, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The examples of README.md and docs/*.md that are marked runnable stay true: every fenced block whose info string is
 * `console runnable` holds commands (`$ ` lines) each followed by what it prints on stdout. The commands run with
 * `workgraph` on the PATH (the built CLI), from the repository root, with a temp data dir. Expected lines match
 * exactly, except that a line `...` matches any number of lines and a line ending in `...` matches any line starting
 * with what comes before it.
 */
interface Example {
  file: string;
  line: number;
  command: string;
  expected: string[];
}

function examples(): Example[] {
  const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const out: Example[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    let inBlock = false;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (!inBlock && /^```console runnable\s*$/.test(l)) {
        inBlock = true;
        continue;
      }
      if (!inBlock) continue;
      if (l.startsWith('```')) {
        inBlock = false;
        continue;
      }
      if (l.startsWith('$ ')) out.push({ file, line: i + 1, command: l.slice(2), expected: [] });
      else out[out.length - 1]?.expected.push(l);
    }
  }
  for (const e of out) while (e.expected.length && e.expected[e.expected.length - 1] === '') e.expected.pop();
  return out;
}

/** Whether `actual` lines match the `expected` pattern lines (see above). */
function matches(expected: string[], actual: string[]): boolean {
  if (expected.length === 0) return actual.length === 0;
  const [first, ...rest] = expected;
  if (first === '...') {
    for (let k = 0; k <= actual.length; k++) if (matches(rest, actual.slice(k))) return true;
    return false;
  }
  if (actual.length === 0) return false;
  const ok = first!.endsWith('...') ? actual[0]!.startsWith(first!.slice(0, -3)) : actual[0] === first;
  return ok && matches(rest, actual.slice(1));
}

describe('runnable examples in README.md and docs/', () => {
  let tmp: ReturnType<typeof tempDir>;
  let bin: string;
  beforeAll(() => {
    assertBuilt();
    tmp = tempDir('wg-docs-');
    bin = path.join(tmp.dir, 'bin');
    fs.mkdirSync(bin);
    // `workgraph` as `npm link` would put it on the PATH.
    fs.writeFileSync(path.join(bin, 'workgraph'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  });
  afterAll(() => tmp.cleanup());

  const all = examples();

  it('finds the marked examples (README, getting-started, debugging, configuration)', () => {
    const files = new Set(all.map((e) => e.file));
    for (const f of ['README.md', 'docs/getting-started.md', 'docs/debugging.md', 'docs/configuration.md']) expect(files).toContain(f);
  });

  it.each(all.map((e) => [`${e.file}:${e.line}`, e] as const))('%s', (_where, e) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
    const r = spawnSync('/bin/sh', ['-c', e.command], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...env, PATH: `${bin}${path.delimiter}${env.PATH ?? ''}`, WORKGRAPH_DATA_DIR: path.join(tmp.dir, 'data') },
      timeout: 60_000,
    });
    const actual = r.stdout.replace(/\n$/, '').split('\n');
    if (!matches(e.expected, r.stdout === '' ? [] : actual)) {
      throw new Error(`${e.file}:${e.line}: \`${e.command}\` printed:\n${r.stdout}${r.stderr ? `\n(stderr: ${r.stderr.slice(0, 500)})` : ''}\nexpected:\n${e.expected.join('\n')}`);
    }
  }, 90_000);
});
