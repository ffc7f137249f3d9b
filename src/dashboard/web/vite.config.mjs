// Builds the dashboard's front end into dist/dashboard/web (beside the compiled server code of src/dashboard; served as static files by `workgraph dashboard`).
// JSX goes through Vite's own oxc transform (automatic runtime): @vitejs/plugin-react does not install beside this
// repository's jest/babel tree, and nothing here needs its fast refresh in production builds.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.resolve(here, '../../../dist/dashboard/web'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    rollupOptions: {
      // React Flow marks its entry "use client" (for React server components); meaningless in a client bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
