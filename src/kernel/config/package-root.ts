import * as fs from 'node:fs';
import * as path from 'node:path';

let cached: { root: string; version: string } | undefined;

/**
 * The folder holding workgraph's package.json, found by walking up from this file — the same from `src/` (tests)
 * and `dist/` (built). Bundled workflows and spec/ schemas are located from it.
 */
export function packageRoot(): string {
  return packageInfo().root;
}

/** workgraph's version from its package.json. */
export function packageVersion(): string {
  return packageInfo().version;
}

function packageInfo(): { root: string; version: string } {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'workgraph') return (cached = { root: dir, version: pkg.version ?? '0.0.0' });
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`workgraph's package.json not found above ${__dirname}`);
    dir = parent;
  }
}
