import type { NodeExecutionRecord } from './types';

/** What the view reads of a history: its length and a record built from its columns. */
export interface RecordSource {
  readonly length: number;
  byIndex(executionIndex: number): NodeExecutionRecord | undefined;
}

/** A read-only array view of a history: every array read (index, length, iteration, map, slice…) built on demand. */
export function recordsView(history: RecordSource): readonly NodeExecutionRecord[] {
  const index = (key: string | symbol): number => (typeof key === 'string' && /^(?:0|[1-9]\d*)$/.test(key) ? Number(key) : -1);
  const refuse = (): never => {
    throw new TypeError('an execution history is read-only');
  };
  return new Proxy([] as NodeExecutionRecord[], {
    get(target, key, receiver) {
      if (key === 'length') return history.length;
      const i = index(key);
      if (i >= 0) return history.byIndex(i);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      const i = index(key);
      return i >= 0 ? i < history.length : Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      const i = index(key);
      if (i >= 0) {
        return i < history.length ? { value: history.byIndex(i), writable: false, enumerable: true, configurable: true } : undefined;
      }
      if (key === 'length') return { value: history.length, writable: true, enumerable: false, configurable: false };
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      const keys: Array<string | symbol> = [];
      for (let i = 0; i < history.length; i++) keys.push(String(i));
      return [...keys, ...Reflect.ownKeys(target)];
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
  });
}
