import { Help, type Command, type HelpConfiguration } from 'commander';

/** The widest help the CLI prints: a wider terminal still gets 80 columns, a narrower one its own width. */
export const HELP_WIDTH = 80;

/**
 * The layout of every command's help (applied to each command by shareOptions). Commander pads every term of a list
 * to the longest one and wraps descriptions only when at least `minWidthToWrap` (40) columns remain beside it, so one
 * long term (`search [options] <project> <query...>`) left every description of `knowledge --help` unwrapped, 170
 * columns wide. Here the terms' column is as wide as the longest term that leaves 40 beside it; a longer term stands
 * on its own line with its description wrapped below, in the descriptions' column.
 */
export const HELP_LAYOUT: HelpConfiguration = {
  prepareContext(this: Help, context) {
    this.helpWidth = Math.min(this.helpWidth ?? context.helpWidth ?? HELP_WIDTH, HELP_WIDTH);
  },
  padWidth(this: Help, cmd: Command, helper: Help) {
    const fitting = terms(cmd, helper).map((t) => helper.displayWidth(t)).filter((w) => w <= termColumn(this));
    return Math.max(0, ...fitting);
  },
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help) {
    if (!description || helper.displayWidth(term) <= termWidth) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    const indent = ' '.repeat(ITEM_INDENT + termWidth + SPACER);
    const wrapped = helper.boxWrap(description, (this.helpWidth ?? HELP_WIDTH) - indent.length);
    return `${' '.repeat(ITEM_INDENT)}${term}\n${indent}${wrapped.replace(/\n/g, `\n${indent}`)}`;
  },
};

/** Commander's item layout: two spaces before a term, two between it and its description. */
const ITEM_INDENT = 2;
const SPACER = 2;

/** The widest term column that leaves its descriptions the width commander wraps at. */
function termColumn(help: Help): number {
  return Math.max((help.helpWidth ?? HELP_WIDTH) - ITEM_INDENT - SPACER - help.minWidthToWrap, 0);
}

/** Every term the help of `cmd` lists: its subcommands, options, global options (when shown) and arguments. */
function terms(cmd: Command, helper: Help): string[] {
  return [
    ...helper.visibleCommands(cmd).map((c) => helper.subcommandTerm(c)),
    ...helper.visibleOptions(cmd).map((o) => helper.optionTerm(o)),
    ...(helper.showGlobalOptions ? helper.visibleGlobalOptions(cmd).map((o) => helper.optionTerm(o)) : []),
    ...helper.visibleArguments(cmd).map((a) => helper.argumentTerm(a)),
  ];
}
