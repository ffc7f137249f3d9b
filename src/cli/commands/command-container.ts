import type { AppConfig } from '../../kernel/config/app-config';
import type { UseCase } from '../../kernel/use-case';

/** What a command reaches in the container: a registration by token, or a use case (called without a tool call). */
export interface CommandStores {
  get<T>(token: symbol): T;
  useCase<I, O>(token: symbol): { execute(input: I): Promise<O> };
}

/**
 * Runs `fn` over a container built as `serve` builds it (one composition path: the same modules, the same stores of
 * `config` — the data dir's files or the PostgreSQL database), then closes the database pool so the command exits.
 */
export async function withStores<T>(config: AppConfig, fn: (stores: CommandStores) => Promise<T>): Promise<T> {
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const { Tokens } = await import('../../kernel/tokens');
  const { noopCallContext } = await import('../../kernel/call-context');
  const c = createContainer(config, silentLogger);
  try {
    return await fn({
      get: <R>(token: symbol) => c.resolve<R>(token),
      useCase: <I, O>(token: symbol) => {
        const useCase = c.resolve<UseCase<I, O>>(token);
        return { execute: async (input: I) => useCase.execute(input, noopCallContext()) };
      },
    });
  } finally {
    if (config.database) await c.resolve<{ close(): Promise<void> }>(Tokens.Database).close();
  }
}
