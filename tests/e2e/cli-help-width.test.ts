import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { assertBuilt, CLI } from './helpers/server-process';

/**
 * Every command's help fits 80 columns: the built CLI's `--help` of the program and of each command and subcommand
 * (found by walking the program, so a new command is checked too), printed to a pipe as a user's pager or `| less`
 * gets it; and the same help on a terminal wider than 80 columns. Before src/cli/help-layout.ts, one long term
 * (`search [options] <project> <query...>`) left every line of `workgraph knowledge --help` unwrapped, up to 170.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

function program(): Command {
  assertBuilt();
  const { buildProgram } = require(path.join(ROOT, 'dist/cli/program.js')) as typeof import('../../src/cli/program');
  return buildProgram();
}

function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

/** Lines wider than `width` columns (code points: the help has no wide characters), each with its width. */
function tooWide(text: string, width: number): string[] {
  return text.split('\n').filter((l) => [...l].length > width).map((l) => `${[...l].length}: ${l}`);
}

const paths = [[], ...commandPaths(program())];

test('the program has the commands the help is checked for', () => {
  const names = paths.map((p) => p.join(' '));
  expect(names).toEqual(expect.arrayContaining(['', 'serve', 'knowledge', 'knowledge search', 'db import', 'sessions prune']));
});

test.each(paths.map((p) => [p.join(' ') || '(the program)', p]))('workgraph %s --help: every line at most 80 columns', async (_name, args) => {
  const { stdout } = await run(process.execPath, [CLI, ...(args as string[]), '--help'], { env: { ...process.env, COLUMNS: '200' } });
  expect(stdout).toContain('Usage: workgraph');
  expect(tooWide(stdout, 80)).toEqual([]);
});

test("workgraph knowledge --help wraps each description in the descriptions' column, a long term on its own line", async () => {
  const { stdout } = await run(process.execPath, [CLI, 'knowledge', '--help']);
  const lines = stdout.split('\n');
  const search = lines.findIndex((l) => l === '  search [options] <project> <query...>');
  expect(search).toBeGreaterThan(0);
  const column = lines[search + 1].search(/\S/);
  expect(lines[search + 1].slice(column)).toMatch(/^ranked search of a knowledge graph/);
  const dataDir = lines.find((l) => l.startsWith('  --data-dir <dir> '))!;
  expect(dataDir.search(/data folder/)).toBe(column);
});

test('on a terminal wider than 80 columns, every help still fits 80', () => {
  const all: Command[] = [];
  const walk = (c: Command): void => {
    all.push(c);
    c.commands.forEach(walk);
  };
  walk(program());
  const wide = all.flatMap((c) => {
    c.configureOutput({ getOutHelpWidth: () => 200 });
    return tooWide(c.helpInformation(), 80).map((l) => `${c.name()}: ${l}`);
  });
  expect(wide).toEqual([]);
});
