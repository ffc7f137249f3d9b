import { Command } from 'commander';
import { commanderOption, withCommonOptions } from './common-options';
import { SERVE_OPTIONS } from './serve-options';
import type { ServeFlags } from './serve-args';

/**
 * `workgraph serve` for commander: the common options and serve's own (serve-options.ts), the work in serve.ts. A
 * plain command line skips commander altogether (serve-args.ts, src/cli/program.ts).
 */
export function serveCommand(): Command {
  const cmd = withCommonOptions(new Command('serve').description('serve MCP over stdio (the default command) or streamable HTTP (--http)'));
  for (const spec of SERVE_OPTIONS) cmd.addOption(commanderOption(spec));
  return cmd.action((flags: ServeFlags) => (require('./serve') as typeof import('./serve')).runServe(flags));
}
