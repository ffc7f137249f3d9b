import { Command, Option } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';
import { resolveHttpConfig, type HttpFlags } from '../resolve-http-config';

const list = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];

/**
 * `workgraph serve`: MCP over stdio, and/or over streamable HTTP with `--http`. Modules are loaded here, lazily, so
 * `--help` stays fast.
 */
export function serveCommand(): Command {
  return withCommonOptions(new Command('serve').description('serve MCP over stdio (the default command) or streamable HTTP (--http)'))
    .addOption(new Option('--http <[host:]port>', 'serve MCP over streamable HTTP at /mcp (env WORKGRAPH_HTTP; host default 127.0.0.1)'))
    .addOption(new Option('--stdio', 'with --http: serve stdio too (end of stdin then closes only the stdio session)'))
    .addOption(new Option('--auth-token-file <file>', 'bearer tokens, one per line (env WORKGRAPH_AUTH_TOKEN_FILE, or WORKGRAPH_AUTH_TOKENS=a,b)'))
    .addOption(new Option('--allowed-origins <origins>', 'extra allowed Origin values, comma-separated or repeated (env WORKGRAPH_ALLOWED_ORIGINS)').argParser(list))
    .addOption(new Option('--allowed-hosts <hosts>', 'extra allowed Host values, comma-separated or repeated (env WORKGRAPH_ALLOWED_HOSTS)').argParser(list))
    .addOption(new Option('--public-url <url>', 'the URL clients reach the server at, behind a proxy (env WORKGRAPH_PUBLIC_URL)'))
    .addOption(new Option('--session-idle-timeout <duration>', 'close HTTP sessions idle this long, e.g. 30m (env WORKGRAPH_SESSION_IDLE_TIMEOUT; default 30m)'))
    .addOption(new Option('--max-sessions <n>', 'open HTTP sessions at most (env WORKGRAPH_MAX_SESSIONS; default 100)'))
    .action(async (flags: CommonFlags & HttpFlags) => {
      const config = resolveConfig(flags);
      const http = resolveHttpConfig(flags);
      const { PinoLogger } = await import('../../kernel/logging/pino-logger');
      const { createServerCore } = await import('../../server/server-core');
      const { createServerHost, serveStdio } = await import('../../server/run-server');
      const logger = PinoLogger.create(config.logLevel);
      process.on('uncaughtException', (e) => {
        logger.error('uncaught exception', { err: e.message, stack: e.stack });
        process.exit(1);
      });
      const core = createServerCore(config, logger);
      const host = await createServerHost({
        core,
        // tsyringe, reflect-metadata and the modules load on the first tool call, not at start.
        container: () => (require('../../server/container') as typeof import('../../server/container')).createContainer(config, logger, { core }),
        pinoLogger: logger,
      });

      let shuttingDown: Promise<void> | undefined;
      let stopAccepting = () => undefined as void;
      const shutdown = () => {
        stopAccepting();
        shuttingDown ??= core.lifecycle.shutdown().then(() => process.exit(0));
        return shuttingDown;
      };

      let httpUrl: string | undefined;
      if (http) {
        const { startHttpTransport } = await import('../../server/http/start-http-transport');
        const server = await startHttpTransport(host, http, logger);
        httpUrl = server.url;
        stopAccepting = () => server.stopAccepting();
        core.lifecycle.onShutdown('http transport', () => server.close());
      }
      if (!http || http.stdio) {
        const stdio = await serveStdio(host, { input: process.stdin, output: process.stdout, alsoServing: httpUrl });
        // With HTTP too, the end of stdin closes only the stdio session; alone, it ends the server.
        void stdio.closed.then(() => (http ? stdio.server.close() : shutdown()));
      } else {
        host.announce(httpUrl as string);
      }
      // `on`, not `once`: signal-exit (loaded by proper-lockfile) re-raises a signal when its own listener is the only
      // one left, and a `once` listener is removed before it runs. shutdown() runs once however often it is called.
      process.on('SIGTERM', () => void shutdown());
      process.on('SIGINT', () => void shutdown());
      if (http) process.on('SIGHUP', () => void shutdown());
      await new Promise<never>(() => undefined);
    });
}
