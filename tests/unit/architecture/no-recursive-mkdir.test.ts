import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Folders are created through the kernel's makeDir (src/kernel/files/make-dir.ts), never Node's
 * `mkdir(dir, { recursive: true })`, which loops forever under /proc (a data dir there never answered a tool call).
 */
const REPO = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|js|mjs|cjs)$/.test(e.name)) out.push(rel);
  }
  return out;
}

describe('no recursive mkdir outside makeDir', () => {
  it('src/ calls mkdir / mkdirSync only without { recursive: true } (makeDir does the rest)', () => {
    const found: string[] = [];
    for (const file of sources('src')) {
      if (file === 'src/kernel/files/make-dir.ts' || file.startsWith('src/dashboard/web/')) continue;
      const code = fs.readFileSync(path.join(REPO, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const m of code.matchAll(/\bmkdir(?:Sync)?\s*\([^;]*?recursive\s*:\s*true/g)) found.push(`${file}: ${m[0].slice(0, 80)}`);
    }
    expect(found).toEqual([]);
  });
});
