import { InvalidArgumentError, Option, type Command } from 'commander';
import { COMMON_OPTIONS, readOptionValue, type OptionSpec } from './option-specs';

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
