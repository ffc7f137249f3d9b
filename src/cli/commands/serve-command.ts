import { Command, InvalidArgumentError, Option } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';
import { resolveHttpConfig, type HttpFlags } from '../resolve-http-config';
import { ConfigFileError } from '../config-file';

const list = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];

/**
 * `workgraph serve`: MCP over stdio, and/or over streamable HTTP with `--http` (docs/http.md). Modules are loaded
 * here, lazily, so `--help` stays fast.
 */
export function serveCommand(): Command {
  return withCommonOptions(new Command('serve').description('serve MCP over stdio (the default command) or streamable HTTP (--http)'))
    .addOption(
      new Option(
        '--shutdown-grace <seconds>',
        'on SIGTERM/SIGINT/SIGHUP or end of stdin, how long in-flight calls may finish before they are cancelled (env WORKGRAPH_SHUTDOWN_GRACE; default 10)',
      ),
    )
    .addOption(
      new Option(
        '--graph-history-mb <mib>',
        'graph run history kept after runs end, all runs together; the oldest runs are dropped first (env WORKGRAPH_GRAPH_HISTORY_MB; default 256)',
      ),
    )
    .addOption(
      new Option('--graph-run-history-mb <mib>', "one graph run's history; past it the run ends with execution_limit (env WORKGRAPH_GRAPH_RUN_HISTORY_MB; default 1024)"),
    )
    .addOption(
      new Option('--graph-runs-keep <n>', 'graph runs recorded in the data dir per tool, for the dashboard; 0 records none (env WORKGRAPH_GRAPH_RUNS_KEEP; default 20)'),
    )
    .addOption(new Option('--graph-result-mb <mib>', 'largest graph tool result, as JSON; larger is execution_limit (env WORKGRAPH_GRAPH_RESULT_MB; default 16)'))
    .addOption(
      new Option('--output-tail <bytes>', "bytes of each output stream's tail in a validate_task_loop answer (env WORKGRAPH_OUTPUT_TAIL; default 8192)").argParser(
        parseOutputTail,
      ),
    )
    .addOption(new Option('--http <[host:]port>', 'serve MCP over streamable HTTP at /mcp (env WORKGRAPH_HTTP; host default 127.0.0.1)'))
    .addOption(new Option('--stdio', 'with --http: serve stdio too (end of stdin then closes only the stdio session)'))
    .addOption(new Option('--auth-token-file <file>', 'bearer tokens, one per line (env WORKGRAPH_AUTH_TOKEN_FILE, or WORKGRAPH_AUTH_TOKENS=a,b)'))
    .addOption(new Option('--allowed-origins <origins>', 'extra allowed Origin values, comma-separated or repeated (env WORKGRAPH_ALLOWED_ORIGINS)').argParser(list))
    .addOption(new Option('--allowed-hosts <hosts>', 'extra allowed Host values, comma-separated or repeated (env WORKGRAPH_ALLOWED_HOSTS)').argParser(list))
    .addOption(new Option('--public-url <url>', 'the URL clients reach the server at, behind a proxy (env WORKGRAPH_PUBLIC_URL)'))
    .addOption(new Option('--session-idle-timeout <duration>', 'close HTTP sessions idle this long, e.g. 30m (env WORKGRAPH_SESSION_IDLE_TIMEOUT; default 30m)'))
    .addOption(new Option('--max-sessions <n>', 'open HTTP sessions at most (env WORKGRAPH_MAX_SESSIONS; default 100)'))
    .addOption(new Option('--dashboard', 'with --http: serve the web dashboard at /dashboard/ under the same tokens as /mcp (env WORKGRAPH_DASHBOARD=1)'))
    .addOption(new Option('--allow-actions', "with --dashboard: enable the dashboard's actions (reset a task, restore knowledge, run a graph tool), each logged"))
    .action(async (flags: CommonFlags & HttpFlags) => {
      const config = resolveConfig(flags);
      const http = resolveHttpConfig(flags);
      const { PinoLogger } = await import('../../kernel/logging/pino-logger');
      const { createServerCore } = await import('../../server/server-core');
      const { createServerHost, serveStdio } = await import('../../server/run-server');
      if (config.onlyGraphs && config.graphPaths.length === 0) {
        throw new ConfigFileError('--only-graphs serves the tools of graph files: name them with --graphs FILE (or WORKGRAPH_GRAPHS_PATH)');
      }
      const logger = PinoLogger.create(config.logLevel);
      // Under a file-size limit (ulimit -f) a write past it raises SIGXFSZ, whose default action kills the server:
      // handled, the write fails with EFBIG instead and the tool answers storage_error with nothing changed.
      process.on('SIGXFSZ', () => logger.warn('a write passed the file-size limit (SIGXFSZ); it fails with EFBIG'));
      process.on('uncaughtException', (e) => {
        logger.error('uncaught exception', { err: e.message, stack: e.stack });
        process.exit(1);
      });
      const core = createServerCore(config, logger);
      // One shutdown path (ShutdownCoordinator): the first SIGTERM/SIGINT/SIGHUP stops the HTTP listener, drains
      // in-flight calls of every session for the grace period, cancels the rest, kills command trees and waits for
      // writes; a second one kills the command trees and exits at once. Persistent listeners (not `once`):
      // signal-exit, pulled in by proper-lockfile, re-raises a signal when its own listener is the only one left,
      // which would end the process by the signal instead of 0.
      let shutdown: ((reason: string) => Promise<void>) | undefined;
      let signals = 0;
      const onSignal = (sig: NodeJS.Signals) => {
        signals++;
        if (signals === 1 && shutdown) {
          if (core.lifecycle.isShuttingDown) {
            // Already draining after the end of stdin: the client is going away, so stop waiting and cancel now.
            logger.info(`received ${sig} while shutting down: cancelling the calls still running`);
            core.lifecycle.hurry();
          } else {
            logger.info(`received ${sig}: shutting down`, { graceMs: core.lifecycle.graceMs });
          }
          void shutdown(sig).then(() => process.exit(0));
          return;
        }
        if (signals > 1) logger.warn(`received ${sig} again: exiting now`);
        core.lifecycle.exitNow();
        process.exit(0);
      };
      for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, onSignal);

      const host = await createServerHost({
        core,
        // tsyringe, reflect-metadata and the modules load on the first tool call, not at start.
        container: () => (require('../../server/container') as typeof import('../../server/container')).createContainer(config, logger, { core }),
        pinoLogger: logger,
      });

      if (!http) {
        const running = await serveStdio(host, { input: process.stdin, output: process.stdout });
        shutdown = (reason) => running.shutdown(reason);
        await running.closed;
        process.exit(0);
      }

      const { startHttpTransport } = await import('../../server/http/start-http-transport');
      const server = await startHttpTransport(host, http, logger);
      core.lifecycle.onShutdown('http transport', () => server.close());
      shutdown = (reason) => {
        server.stopAccepting();
        return core.lifecycle.beginShutdown(reason);
      };
      if (http.stdio) {
        // Beside HTTP, the end of stdin (or a broken stdout) closes only the stdio session.
        await serveStdio(host, { input: process.stdin, output: process.stdout, alsoServing: server.url });
      } else {
        host.announce(server.url);
      }
    });
}

/** `--output-tail`: a whole number of bytes from 256 to 64 KiB (the runner keeps at most 64 KiB per stream). */
function parseOutputTail(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 256 || n > 64 * 1024) {
    throw new InvalidArgumentError(`expected a whole number of bytes from 256 to 65536, got '${value}'`);
  }
  return n;
}
