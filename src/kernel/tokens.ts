/**
 * The kernel's injection tokens: what every module may inject. Each module declares its own tokens beside its use
 * cases (`src/modules/<m>/application/<m>.tokens.ts`, exported by the module's index.ts).
 */
export const Tokens = {
  // foundation
  Config: Symbol.for('workgraph.Config'),
  Logger: Symbol.for('workgraph.Logger'),
  Clock: Symbol.for('workgraph.Clock'),
  /** Timers beside the clock (setInterval/setTimeout behind a port). */
  Timers: Symbol.for('workgraph.Timers'),
  PathPolicy: Symbol.for('workgraph.PathPolicy'),
  /** The one shell command runner (src/kernel/command-runner.ts), registered by the tasks module. */
  CommandRunner: Symbol.for('workgraph.CommandRunner'),
  /** What a dead server's commands left running, found and killed (OrphanedCommands in kernel/command-runner.ts). */
  OrphanedCommands: Symbol.for('workgraph.OrphanedCommands'),
  ToolRegistry: Symbol.for('workgraph.ToolRegistry'),
  SchemaRegistry: Symbol.for('workgraph.SchemaRegistry'),
  ProjectFiles: Symbol.for('workgraph.ProjectFiles'),
  Lifecycle: Symbol.for('workgraph.Lifecycle'),
  /** The data dir's format gate (format.json, migrations, refusal of newer data): a DataFormatGate. */
  DataFormat: Symbol.for('workgraph.DataFormat'),
  /** The change-event port (kernel/change-events.ts): stores publish, live views subscribe. */
  ChangeEvents: Symbol.for('workgraph.ChangeEvents'),
  /** Every module's ChangeReacher (kernel/change-reach.ts), one per change kind: resolveAll. */
  ChangeReachers: Symbol.for('workgraph.ChangeReachers'),
  /** The PostgreSQL database (a PgDatabase), registered only when a database URL is configured. */
  Database: Symbol.for('workgraph.Database'),
  /** Writes the server waits for before it exits (WritesInProgress). */
  WritesInProgress: Symbol.for('workgraph.WritesInProgress'),
} as const;
