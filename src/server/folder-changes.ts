import * as fs from 'node:fs';

/**
 * Calls `listener` (debounced) when anything under one of `dirs` changes; returns the function that stops. A folder
 * that does not exist or cannot be watched is skipped (its lists are still fresh within their cache TTL). Watchers
 * never keep the process alive.
 */
export function watchFolders(dirs: readonly string[], listener: () => void, debounceMs = 200): () => void {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(listener, debounceMs);
    timer.unref();
  };
  const watchers: fs.FSWatcher[] = [];
  for (const dir of new Set(dirs)) {
    try {
      const w = fs.watch(dir, { persistent: false, recursive: true }, fire);
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      // Missing folder or no watching on this platform: the TTL covers it.
    }
  }
  return () => {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}

/** One watcher shared by every listener, started with the first and stopped with the last. */
export function sharedFolderWatch(dirs: () => readonly string[]): (listener: () => void) => () => void {
  const listeners = new Set<() => void>();
  let stop: (() => void) | undefined;
  return (listener) => {
    listeners.add(listener);
    stop ??= watchFolders(dirs(), () => {
      for (const l of [...listeners]) l();
    });
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) {
        stop?.();
        stop = undefined;
      }
    };
  };
}
