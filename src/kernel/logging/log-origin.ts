import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which client session a log entry was written for. Over HTTP many sessions share one process and one logger; a
 * session that asked for MCP logging must get its own calls' entries and the process's own (start, reloads), never
 * another client's (their projects and paths). The origin follows a call through its awaits, so no use case needs a
 * logger per call. Created on first use: a process serving stdio alone never pays for it.
 */
let storage: AsyncLocalStorage<string> | undefined;

/** Runs `fn` with every log entry it (and what it awaits) writes attributed to `origin`. */
export function runAsLogOrigin<T>(origin: string, fn: () => T): T {
  storage ??= new AsyncLocalStorage<string>();
  return storage.run(origin, fn);
}

/** The session the current code runs for, or undefined outside any call (the process's own entries). */
export function currentLogOrigin(): string | undefined {
  return storage?.getStore();
}
