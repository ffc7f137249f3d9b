import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { configDefaults } from '../../../src/kernel/config/config-defaults';
import { PinoLogger } from '../../../src/kernel/logging/pino-logger';
import { createContainer } from '../../../src/server/container';
import { createServerHost, type ServerHost } from '../../../src/server/run-server';
import { createServerCore, type ServerCore } from '../../../src/server/server-core';

/** A server core and host in this process over a temp folder (`<tmp>/data` as data dir), for in-memory sessions. */
export interface SharedCore {
  tmp: string;
  core: ServerCore;
  host: ServerHost;
  logger: PinoLogger;
  /** Shuts the core down and removes the temp folder. */
  stop(): Promise<void>;
}

export async function startSharedCore(prefix: string, folders: readonly string[] = []): Promise<SharedCore> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  for (const d of [...folders, 'data']) fs.mkdirSync(path.join(tmp, d));
  const config = { ...configDefaults({}), dataDir: path.join(tmp, 'data'), logLevel: 'silent' };
  const logger = PinoLogger.create('silent');
  const core = createServerCore(config, logger);
  const host = await createServerHost({ core, container: () => createContainer(config, logger, { core }), pinoLogger: logger });
  return {
    tmp,
    core,
    host,
    logger,
    stop: async () => {
      await core.lifecycle.beginShutdown('test over');
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
