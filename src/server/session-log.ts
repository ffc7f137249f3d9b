import { LOG_LEVEL_META_KEY, type LoggingLevel, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { PinoLogger, LogLevel } from '../kernel/logging/pino-logger';
import { runAsLogOrigin } from '../kernel/logging/log-origin';
import type { ProtocolEra } from './protocol-era';

let sessionCount = 0;
let requestLogCount = 0;

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const TO_MCP_LEVEL: Record<LogLevel, LoggingLevel> = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' };

/**
 * One session's MCP logging: the log entries its client hears as notifications/message. Legacy: once the client set
 * a level with logging/setLevel, at that level and above, and (with `isolate`, when other sessions share the process)
 * only the entries of this session's own calls. Modern: a request that names a level in its envelope hears its own
 * call's entries (withRequestLog); a request without it hears none.
 */
export class SessionLog {
  /** This session's mark on the log entries its calls write (see log-origin.ts). */
  readonly origin = `session-${++sessionCount}`;
  private level?: LoggingLevel;

  constructor(
    private readonly sdk: Server,
    private readonly era: ProtocolEra,
    private readonly pinoLogger: PinoLogger | undefined,
    private readonly isolate: boolean,
  ) {}

  /** Registers logging/setLevel (legacy; the modern era has none) and the sink; returns the sink's remover. */
  install(): (() => void) | undefined {
    if (this.era === 'legacy') {
      this.sdk.setRequestHandler('logging/setLevel', async (request) => {
        this.level = request.params.level;
        return {};
      });
    }
    return this.pinoLogger?.addSink((level, msg, fields, origin) => {
      if (!this.level) return;
      // Another client's call: its entries are not this client's business.
      if (origin !== undefined && origin !== this.origin) return;
      const mcpLevel = TO_MCP_LEVEL[level];
      if (LEVELS.indexOf(mcpLevel) < LEVELS.indexOf(this.level)) return;
      void this.sdk.sendLoggingMessage({ level: mcpLevel, logger: 'workgraph', data: { msg, ...fields } }).catch(() => undefined);
    });
  }

  /** Runs one call's `fn` as the log origin its entries belong to (see the class). */
  run<T>(extra: ServerContext, fn: () => Promise<T>): Promise<T> {
    const level = this.era === 'modern' ? (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY] : undefined;
    if (level) return this.withRequestLog(extra, fn);
    return this.isolate ? runAsLogOrigin(this.origin, fn) : fn();
  }

  /**
   * Modern era: a request that names a log level in its envelope (`io.modelcontextprotocol/logLevel`) hears the log
   * entries its own call writes, at that level and above, as notifications/message on its own answer (the SDK's
   * `ctx.mcpReq.log` applies the level). Each such call is its own log origin, so concurrent calls on one connection
   * never hear each other's entries.
   */
  private async withRequestLog<T>(extra: ServerContext, fn: () => Promise<T>): Promise<T> {
    const origin = `${this.origin}-request-${++requestLogCount}`;
    const remove = this.pinoLogger?.addSink((level, msg, fields, from) => {
      if (from === origin) void extra.mcpReq.log(TO_MCP_LEVEL[level], { msg, ...fields }, 'workgraph').catch(() => undefined);
    });
    try {
      return await runAsLogOrigin(origin, fn);
    } finally {
      remove?.();
    }
  }
}
