import type pino from 'pino';
import type { Logger } from '../logger';
import { currentLogOrigin } from './log-origin';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** pino's numbers for the levels used (a pino level name not listed here, e.g. `trace`, lets everything through). */
const LEVEL_VALUES: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/**
 * Receives every entry at or above the logger's level (the server forwards them as MCP notifications/message), with
 * the client session it was written for (see log-origin.ts; undefined for the process's own entries).
 */
export type LogSink = (level: LogLevel, msg: string, fields: Record<string, unknown>, origin: string | undefined) => void;

/**
 * The Logger port on pino, writing to file descriptor 2 (stderr) synchronously so nothing is lost at exit and
 * nothing ever reaches stdout. Extra sinks (MCP logging) are shared by every child logger.
 */
export class PinoLogger implements Logger {
  private instance?: pino.Logger;

  private constructor(
    /** Builds this logger's pino instance on its first entry: pino stays out of the server's cold start. */
    private readonly make: () => pino.Logger,
    private readonly sinks: Set<LogSink>,
    private readonly bound: Record<string, unknown>,
    /** The lowest level written to stderr (Infinity for `silent`): below it pino is not even built. */
    private readonly threshold: number,
  ) {}

  /**
   * @param level pino level name, default `info`; `silent` disables stderr output.
   * @param fd file descriptor to write to, default 2.
   */
  static create(level = 'info', fd = 2): PinoLogger {
    const make = () => {
      const pinoFn = require('pino') as typeof pino;
      return pinoFn({ level, base: { pid: process.pid }, name: 'workgraph' }, pinoFn.destination({ fd, sync: true }));
    };
    return new PinoLogger(make, new Set(), {}, Object.hasOwn(LEVEL_VALUES, level) ? LEVEL_VALUES[level as LogLevel] : level === 'silent' ? Infinity : -Infinity);
  }

  private get pino(): pino.Logger {
    return (this.instance ??= this.make());
  }

  /** Adds a sink; returns a function removing it. */
  addSink(sink: LogSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  debug(msg: string, fields: Record<string, unknown> = {}): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields: Record<string, unknown> = {}): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields: Record<string, unknown> = {}): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields: Record<string, unknown> = {}): void {
    this.log('error', msg, fields);
  }

  child(fields: Record<string, unknown>): Logger {
    return new PinoLogger(() => this.pino.child(fields), this.sinks, { ...this.bound, ...fields }, this.threshold);
  }

  private log(level: LogLevel, msg: string, fields: Record<string, unknown>): void {
    // An entry below the level is dropped here, so a server that logs nothing at its level never loads pino (the
    // shutdown's info lines under the default `warn` of MCP clients, debug lines). The sinks still get it.
    if (LEVEL_VALUES[level] >= this.threshold) this.pino[level](fields, msg);
    if (this.sinks.size === 0) return;
    const all = { ...this.bound, ...fields };
    const origin = currentLogOrigin();
    for (const sink of this.sinks) {
      try {
        sink(level, msg, all, origin);
      } catch {
        // a failing sink (client gone) must never break the caller
      }
    }
  }
}
