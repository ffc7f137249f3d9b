/**
 * A command line the CLI cannot run as given: an unknown or malformed option value, a missing companion option, a
 * bad config file. Exits 2 with one line `workgraph COMMAND: message` (src/cli/program.ts); any other error exits 1.
 */
export class UsageError extends Error {}
