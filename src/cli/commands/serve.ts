import { missingWorkflowFolders, resolveConfig } from '../resolve-config';
import { resolveHttpConfig } from '../resolve-http-config';
import { ConfigFileError } from '../config-file';
import { UsageError } from '../usage-error';
import type { ServeFlags } from './serve-args';

/**
 * `workgraph serve` once its arguments are read (by serve-args.ts or by commander): MCP over stdio, and/or over
 * streamable HTTP with `--http` (docs/http.md). The server's modules load here, lazily (docs/architecture.md "Cold
 * start").
 */
export async function runServe(flags: ServeFlags): Promise<void> {
  const config = resolveConfig(flags);
  const http = httpSettings(flags);
  const { PinoLogger } = await import('../../kernel/logging/pino-logger');
  const { createServerCore } = await import('../../server/server-core');
  const { createServerHost, serveStdio } = await import('../../server/run-server');
  if (config.onlyGraphs && config.graphPaths.length === 0) {
    throw new ConfigFileError('--only-graphs serves the tools of graph files: name them with --graphs FILE (or WORKGRAPH_GRAPHS_PATH)');
  }
  const logger = PinoLogger.create(config.logLevel);
  for (const warning of missingWorkflowFolders(config)) logger.warn(warning);
  if (!config.database) {
    // An empty or short HMAC key would sign forgeable session tokens: refused (one line) unless there is no session yet.
    const { checkSessionTokenKey } = await import('../../modules/workflow');
    if ((await checkSessionTokenKey(config.dataDir)) === 'replaced') logger.warn('sessions/token.key was empty or short and no session existed: replaced with a new key');
  }
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
}

/** The HTTP settings; a setting they refuse (`--http notaport`, an unreadable token file) is a usage error, exit 2. */
function httpSettings(flags: ServeFlags): ReturnType<typeof resolveHttpConfig> {
  try {
    return resolveHttpConfig(flags);
  } catch (e) {
    throw e instanceof UsageError ? e : new UsageError((e as Error).message);
  }
}
