// Bundles host-page.ts (with the extension SDK's app-bridge) into one script: node build-host.mjs OUT_FILE.
import { build } from 'vite';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
const dir = fs.mkdtempSync(path.join(path.dirname(out), 'host-build-'));
await build({
  configFile: false,
  logLevel: 'warn',
  build: {
    outDir: dir,
    emptyOutDir: true,
    minify: false,
    lib: { entry: path.join(here, 'host-page.ts'), formats: ['iife'], name: 'wgHostPage', fileName: () => 'host.js' },
  },
});
fs.copyFileSync(path.join(dir, 'host.js'), out);
fs.rmSync(dir, { recursive: true, force: true });
