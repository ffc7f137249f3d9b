import { Command } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';

/** `workgraph serve`: MCP over stdio. Modules are loaded here, lazily, so `--help` stays fast. */
export function serveCommand(): Command {
  return withCommonOptions(new Command('serve').description('serve MCP over stdio (the default command)')).action(
    async (flags: CommonFlags) => {
      const { PinoLogger } = await import('../../kernel/logging/pino-logger');
      const { createServerCore } = await import('../../server/server-core');
      const { runServer } = await import('../../server/run-server');
      const config = resolveConfig(flags);
      const logger = PinoLogger.create(config.logLevel);
      process.on('uncaughtException', (e) => {
        logger.error('uncaught exception', { err: e.message, stack: e.stack });
        process.exit(1);
      });
      const core = createServerCore(config, logger);
      const running = await runServer({
        core,
        // tsyringe, reflect-metadata and the modules load on the first tool call, not at start.
        container: () => (require('../../server/container') as typeof import('../../server/container')).createContainer(config, logger, { core }),
        input: process.stdin,
        output: process.stdout,
        pinoLogger: logger,
      });
      const stop = () => void running.stop();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await running.closed;
      process.exit(0);
    },
  );
}
