import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { assertBuilt } from './helpers/server-process';

/**
 * README's CLI section against the program itself, so neither can drift: every command and subcommand has its line,
 * every option of every command is named in the section, every option of `serve` (the common ones and serve's own)
 * has its row in the options table, and no flag is named there that no command has.
 */
const ROOT = path.resolve(__dirname, '../..');

function cliSection(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## The CLI');
  const end = readme.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThan(0);
  return readme.slice(start, end);
}

function commands(): Array<{ path: string; options: string[] }> {
  assertBuilt();
  const { buildProgram } = require(path.join(ROOT, 'dist/cli/program.js')) as typeof import('../../src/cli/program');
  const out: Array<{ path: string; options: string[] }> = [];
  const walk = (cmd: Command, prefix: string[]) => {
    for (const sub of cmd.commands) {
      const p = [...prefix, sub.name()];
      out.push({ path: p.join(' '), options: sub.options.map((o) => o.long!).filter(Boolean) });
      walk(sub, p);
    }
  };
  walk(buildProgram(), []);
  return out;
}

describe("README's CLI section matches the program", () => {
  const section = cliSection();
  const all = commands();

  it('lists every command and subcommand', () => {
    const missing = all.filter((c) => !new RegExp(`workgraph ${c.path.replace(/ /g, ' ')}(?=[ \\n\`])`).test(section)).map((c) => c.path);
    expect(missing).toEqual([]);
  });

  it('names every option of every command, and every option of serve in the table', () => {
    const named = (flag: string) => new RegExp(`${flag}(?![a-z-])`).test(section);
    const missing = all.flatMap((c) => c.options.filter((o) => !named(o)).map((o) => `${c.path} ${o}`));
    expect(missing).toEqual([]);
    const serve = all.find((c) => c.path === 'serve')!;
    const rows = serve.options.filter((o) => !new RegExp(`^\\| \`${o}(?![a-z-])`, 'm').test(section));
    expect(rows).toEqual([]);
  });

  it('names no flag that no command has', () => {
    const known = new Set(['--help', '--version', ...all.flatMap((c) => c.options)]);
    const mentioned = [...new Set(section.match(/--[a-z][a-z-]*/g) ?? [])];
    expect(mentioned.filter((f) => !known.has(f))).toEqual([]);
  });
});
