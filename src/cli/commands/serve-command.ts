import { Command, InvalidArgumentError, Option } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';

/** `workgraph serve`: MCP over stdio. Modules are loaded here, lazily, so `--help` stays fast. */
export function serveCommand(): Command {
  return withCommonOptions(new Command('serve').description('serve MCP over stdio (the default command)'))
    .addOption(
      new Option('--output-tail <bytes>', "bytes of each output stream's tail in a validate_task_loop answer (env WORKGRAPH_OUTPUT_TAIL; default 8192)").argParser(
        parseOutputTail,
      ),
    )
    .action(
    async (flags: CommonFlags) => {
      const { PinoLogger } = await import('../../kernel/logging/pino-logger');
      const { createServerCore } = await import('../../server/server-core');
      const { runServer } = await import('../../server/run-server');
      const config = resolveConfig(flags);
      const logger = PinoLogger.create(config.logLevel);
      // Under a file-size limit (ulimit -f) a write past it raises SIGXFSZ, whose default action kills the server:
      // handled, the write fails with EFBIG instead and the tool answers storage_error with nothing changed.
      process.on('SIGXFSZ', () => logger.warn('a write passed the file-size limit (SIGXFSZ); it fails with EFBIG'));
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

/** `--output-tail`: a whole number of bytes from 256 to 64 KiB (the runner keeps at most 64 KiB per stream). */
function parseOutputTail(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 256 || n > 64 * 1024) {
    throw new InvalidArgumentError(`expected a whole number of bytes from 256 to 65536, got '${value}'`);
  }
  return n;
}
