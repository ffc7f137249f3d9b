import { Command, InvalidArgumentError, Option } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';

interface DashboardFlags extends CommonFlags {
  port: number;
  host: string;
  allowActions?: boolean;
  authTokenFile?: string;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number (0-65535)');
  return n;
}

/**
 * `workgraph dashboard`: the web dashboard over the same stores the servers use. Prints its URL with a random access
 * token (or the one in --auth-token-file); read-only unless --allow-actions.
 */
export function dashboardCommand(): Command {
  return withCommonOptions(new Command('dashboard').description('serve the web dashboard (task DAGs, graph runs, knowledge) over the data dir'))
    .addOption(new Option('--port <port>', 'port to listen on (0: any free port)').argParser(port).default(4320))
    .addOption(new Option('--host <host>', 'address to listen on').default('127.0.0.1'))
    .addOption(new Option('--allow-actions', 'enable actions: reset a task, restore knowledge nodes, run a graph tool (each logged)'))
    .addOption(new Option('--auth-token-file <file>', 'the tokens that open it, in the token-file format of docs/http.md (env WORKGRAPH_AUTH_TOKEN_FILE, WORKGRAPH_AUTH_TOKENS); default: a random token'))
    .action(async (flags: DashboardFlags) => {
      const { PinoLogger } = await import('../../kernel/logging/pino-logger');
      const { startDashboard } = await import('../../dashboard/start-dashboard');
      const { resolveAuthTokens } = await import('../auth-tokens');
      const config = resolveConfig(flags);
      const { readConfigFile } = await import('../config-file');
      const configFile = flags.config ?? (process.env.WORKGRAPH_CONFIG || undefined);
      const fromConfig = configFile ? (readConfigFile(configFile).authTokenFile as string | undefined) : undefined;
      const tokens = resolveAuthTokens({ flagFile: flags.authTokenFile, env: process.env, configFile: fromConfig, cwd: process.cwd() });
      const logger = PinoLogger.create(config.logLevel);
      const { createServerCore } = await import('../../server/server-core');
      const { createContainer } = await import('../../server/container');
      const running = await startDashboard({
        config,
        logger,
        // The stores as `serve` builds them: a server core (change events, lifecycle) and its container.
        stores: () => {
          const core = createServerCore(config, logger);
          return { container: createContainer(config, logger, { core }), shutdown: () => core.lifecycle.beginShutdown('dashboard stopped', { graceMs: 0 }) };
        },
        port: flags.port,
        host: flags.host,
        ...(tokens ? { tokens } : {}),
        allowActions: Boolean(flags.allowActions),
      });
      process.stdout.write(`workgraph dashboard ${config.version} (${flags.allowActions ? 'actions enabled' : 'read-only'}), data dir ${config.dataDir}\n  ${running.url}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await running.close();
      process.exit(0);
    });
}
