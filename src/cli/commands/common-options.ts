import { InvalidArgumentError, Option, type Command } from 'commander';
import { COMMON_OPTIONS, optionName, readOptionValue, STORE_OPTION_NAMES, type OptionSpec } from './option-specs';
import { UsageError } from '../usage-error';
import { HELP_LAYOUT } from '../help-layout';

/** A commander option from its spec (option-specs.ts): the same flags, description, choices and parsing. */
export function commanderOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.choices) return option.choices([...spec.choices]);
  if (!spec.parse) return option;
  return option.argParser((value: string, previous: unknown) => {
    try {
      return readOptionValue(spec, value, previous);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  });
}

/** Adds the options shared by commands that load workflows, graphs or data (flags beat environment variables). */
export function withCommonOptions(cmd: Command): Command {
  for (const spec of COMMON_OPTIONS) cmd.addOption(commanderOption(spec));
  return cmd;
}

/**
 * Adds the options of a command that reads the stores — `--config`, `--data-dir`, `--database-url`,
 * `--database-pool-size` — and the common options named in `extra` (`workflows`, `session-retention-days`, …).
 */
export function withStoreOptions(cmd: Command, ...extra: string[]): Command {
  const names = new Set([...STORE_OPTION_NAMES, ...extra]);
  for (const spec of COMMON_OPTIONS) if (names.has(optionName(spec))) cmd.addOption(commanderOption(spec));
  return cmd;
}

/** `sessions prune` for the `prune` command under `sessions` (the program's own name left out). */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `workgraph sessions prune: ` — the one prefix of every error line the CLI prints. */
export function errorPrefix(cmd: Command | undefined): string {
  const p = cmd ? commandPath(cmd) : '';
  return `workgraph${p ? ` ${p}` : ''}: `;
}

/**
 * The one place where the options shared by several commands are wired for every command of the program, so that a
 * subcommand reads each option its help lists wherever it is given:
 *
 * - every command parses its options positionally (an option belongs to the command it follows), so
 *   `sessions prune --data-dir D` is prune's own;
 * - a command with subcommands also takes the common options its subcommands declare (`sessions --data-dir D prune`,
 *   `db --database-url U status`), and before each action the values given there are handed down to the subcommand
 *   that runs (given in both places, the subcommand's wins); an option given before a subcommand that does not
 *   declare it is a usage error, never silently dropped;
 * - every command words its errors with the same prefix (`workgraph sessions prune: …`) and points at its own --help;
 * - every command's help is laid out to at most 80 columns (help-layout.ts).
 *
 * Before this, a parent that declared `--data-dir` swallowed the value given after the subcommand, and
 * `sessions prune --data-dir D` pruned the default data dir.
 */
export function shareOptions(program: Command, onAction?: (action: Command) => void): void {
  const visit = (cmd: Command): void => {
    cmd.enablePositionalOptions();
    cmd.exitOverride();
    cmd.configureHelp(HELP_LAYOUT);
    const prefix = errorPrefix(cmd);
    cmd.configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, prefix)) });
    cmd.showHelpAfterError(`(run \`workgraph${cmd.parent ? ` ${commandPath(cmd)}` : ''} --help\` for usage)`);
    for (const sub of cmd.commands) visit(sub);
    if (!cmd.parent || cmd.commands.length === 0) return;
    const declared = new Set(cmd.options.map((o) => o.long));
    for (const spec of COMMON_OPTIONS) {
      const long = `--${optionName(spec)}`;
      if (declared.has(long) || !cmd.commands.some((sub) => sub.options.some((o) => o.long === long))) continue;
      const option = commanderOption(spec);
      forSubcommands.add(option);
      cmd.addOption(option);
    }
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    onAction?.(action);
    refuseSubcommandOnly(action);
    handDown(action);
  });
}

/** Options a group takes only to hand them to its subcommands. */
const forSubcommands = new WeakSet<Option>();

/** `sessions --session-retention-days 7` (without `prune`): an option of the subcommand only, so a usage error. */
function refuseSubcommandOnly(action: Command): void {
  for (const option of action.options) {
    if (!forSubcommands.has(option) || action.getOptionValueSource(option.attributeName()) !== 'cli') continue;
    const owners = action.commands.filter((sub) => sub.options.some((o) => o.long === option.long)).map(commandPath);
    throw new UsageError(`${option.long} is an option of ${owners.map((o) => `\`${o}\``).join(', ')}, not of \`${commandPath(action)}\` itself`);
  }
}

/** Copies the option values given to the ancestors of `action` (before its name) onto `action`. */
function handDown(action: Command): void {
  for (let parent = action.parent; parent?.parent; parent = parent.parent) {
    for (const option of parent.options) {
      const key = option.attributeName();
      const source = parent.getOptionValueSource(key);
      if (source !== 'cli' && source !== 'env') continue;
      const own = action.options.find((o) => o.attributeName() === key);
      if (!own) throw new UsageError(`${option.long} given before \`${action.name()}\` is not an option of \`${commandPath(action)}\` (see \`workgraph ${commandPath(action)} --help\`)`);
      const ownSource = action.getOptionValueSource(key);
      if (ownSource === 'cli' || ownSource === 'env') continue;
      action.setOptionValueWithSource(key, parent.getOptionValue(key), source);
    }
  }
}
