import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Serves the built front end from `root` (dist/dashboard). Paths are resolved inside `root` only; `/` and unknown
 * extension-less paths get index.html. Hashed assets are cached for a year, index.html never.
 * @returns false when nothing was served (the caller answers 404).
 */
export function serveStatic(root: string, urlPath: string, res: ServerResponse): boolean {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath).replace(/^\/+/, '');
  } catch {
    return false; // the request entry refuses bad escapes before this; never a crash if it is called otherwise
  }
  if (rel === '' || !path.extname(rel)) rel = 'index.html';
  const file = path.resolve(root, rel);
  if (file !== root && !file.startsWith(root + path.sep)) return false;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return false;
  }
  if (!stat.isFile()) return false;
  res.writeHead(200, {
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'Content-Length': stat.size,
    'Cache-Control': rel === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
  });
  // A file removed between stat and read: the answer has begun, so the connection is closed (never a crash).
  fs.createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
  return true;
}
