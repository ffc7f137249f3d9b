import { serveCommand } from '../../../src/cli/commands/serve-command';
import { parseServeArgs } from '../../../src/cli/commands/serve-args';

/** What commander makes of `workgraph serve <args>`: its opts(), or undefined when it refuses the line. */
function commanderFlags(args: string[]): Record<string, unknown> | undefined {
  const cmd = serveCommand();
  cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  cmd.action(() => undefined);
  try {
    cmd.parse(args, { from: 'user' });
  } catch {
    return undefined;
  }
  return cmd.opts();
}

/** Commander's opts() keeps keys whose value is undefined; the comparison is about the values given. */
const defined = (o: Record<string, unknown> | undefined) => (o === undefined ? undefined : Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));

describe('parseServeArgs (serve without commander)', () => {
  const plain: string[][] = [
    [],
    ['--data-dir', '/tmp/d'],
    ['--data-dir=/tmp/d', '--log-level', 'info'],
    ['--workflows', 'a', '--workflows=b', '--graphs', 'g.json', '--allow-root', '/r'],
    ['--allowed-origins', 'http://a, http://b', '--allowed-origins', 'http://c', '--allowed-hosts=h1,h2'],
    ['--http', '127.0.0.1:0', '--stdio', '--dashboard', '--allow-actions', '--max-sessions', '5', '--session-idle-timeout', '30m'],
    ['--output-tail', '4096', '--shutdown-grace', '3', '--graph-runs-keep', '0', '--graph-history-mb', '1.5'],
    ['--modules', 'workflow,tasks', '--only-graphs', '--mcp-config', 'm.json', '--config', 'c.yaml', '--database-url', 'postgres://x@h/db'],
    ['--data-dir', 'first', '--data-dir', 'last'],
    ['--data-dir='],
  ];
  it.each(plain.map((a) => [a.join(' ') || '(no arguments)', a]))('reads %s as commander does', (_, args) => {
    const fast = parseServeArgs(args as string[]);
    expect(fast).toBeDefined();
    expect(defined(fast as Record<string, unknown>)).toEqual(defined(commanderFlags(args as string[])));
  });

  // Each of these goes to commander, which prints the help or words the usage error.
  const toCommander: string[][] = [
    ['--help'],
    ['-h'],
    ['--version'],
    ['--data-dir'],
    ['--data-dir', '--log-level', 'info'],
    ['--log-level', 'loud'],
    ['--output-tail', '5'],
    ['--stdio=yes'],
    ['--data-dri', '/tmp/d'],
    ['positional'],
    ['--', '--data-dir', 'x'],
  ];
  it.each(toCommander.map((a) => [a.join(' '), a]))('leaves %s to commander', (_, args) => {
    expect(parseServeArgs(args as string[])).toBeUndefined();
  });

  it('leaves to commander every line commander refuses among those tried', () => {
    for (const args of [['--log-level', 'loud'], ['--output-tail', '5'], ['--data-dri', 'x'], ['--data-dir']]) {
      expect(commanderFlags(args)).toBeUndefined();
      expect(parseServeArgs(args)).toBeUndefined();
    }
  });
});
