import { Command, CommanderError } from 'commander';
import { packageVersion } from '../kernel/config/package-root';
import { ConfigFileError } from './config-file';
import { serveCommand } from './commands/serve-command';
import { validateCommand } from './commands/validate-command';
import { listCommand } from './commands/list-command';
import { tasksCommand } from './commands/tasks-command';
import { runCommand } from './commands/run-command';
import { sessionCommand, sessionsCommand } from './commands/sessions-command';
import { dashboardCommand } from './commands/dashboard-command';
import { projectsCommand } from './commands/projects-command';
import { dbCommand } from './commands/db-command';
import { knowledgeCommand } from './commands/knowledge-command';

/** Exit codes of the CLI. */
export const ExitCodes = { Ok: 0, Problems: 1, Usage: 2 } as const;

/** The `workgraph` program: `serve` (the default), `validate`, `list`, and the module commands. */
export function buildProgram(): Command {
  const program = new Command('workgraph')
    .description('An MCP server that keeps AI coding agents on rails: guided workflows, tool graphs, task DAGs, a knowledge graph.')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.addCommand(serveCommand(), { isDefault: true });
  program.addCommand(validateCommand());
  program.addCommand(listCommand());
  program.addCommand(tasksCommand());
  program.addCommand(runCommand());
  program.addCommand(sessionsCommand());
  program.addCommand(sessionCommand());
  program.addCommand(dashboardCommand());
  program.addCommand(projectsCommand());
  program.addCommand(dbCommand());
  program.addCommand(knowledgeCommand());
  const exitOverride = (cmd: Command): void => {
    cmd.exitOverride();
    cmd.commands.forEach(exitOverride);
  };
  program.commands.forEach(exitOverride);
  return program;
}

/**
 * Runs the CLI. Returns the exit code for commands that finish (serve keeps running and returns undefined).
 * Usage errors exit 2, `--help`/`--version` exit 0.
 */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const program = buildProgram();
  const first = argv[2];
  if (first !== undefined && !first.startsWith('-') && !program.commands.some((c) => c.name() === first || c.aliases().includes(first))) {
    process.stderr.write(`workgraph: unknown command '${first}' (commands: ${program.commands.map((c) => c.name()).join(', ')}; see --help)\n`);
    return ExitCodes.Usage;
  }
  try {
    await program.parseAsync(argv);
    return undefined;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCodes.Ok;
      return e.exitCode === 0 ? ExitCodes.Ok : ExitCodes.Usage;
    }
    process.stderr.write(`workgraph: ${(e as Error).message}\n`);
    return e instanceof ConfigFileError ? ExitCodes.Usage : ExitCodes.Problems;
  }
}
