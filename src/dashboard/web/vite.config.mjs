// Builds the dashboard's front end into dist/dashboard/web (beside the compiled server code of src/dashboard; served as static files by `workgraph dashboard`),
// then the MCP Apps views from the same components into dist/dashboard/views, one self-contained HTML document each
// (app-views.mjs).
// JSX goes through Vite's own oxc transform (automatic runtime): @vitejs/plugin-react does not install beside this
// repository's jest/babel tree, and nothing here needs its fast refresh in production builds.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import { buildViews } from './app-views.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const oxc = { jsx: { runtime: 'automatic' } };
// React Flow marks its entry "use client" (for React server components); meaningless in a client bundle.
function onwarn(warning, warn) {
  if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
  warn(warning);
}

/** When the dashboard is built, the views are built too (not for `vite dev`). */
function appViews() {
  return {
    name: 'workgraph-app-views',
    apply: 'build',
    async closeBundle() {
      if (process.env.WORKGRAPH_SKIP_VIEWS === '1') return;
      await buildViews(here, path.resolve(here, '../../../dist/dashboard/views'), { oxc, onwarn });
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  logLevel: 'warn',
  oxc,
  plugins: [appViews()],
  build: {
    outDir: path.resolve(here, '../../../dist/dashboard/web'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    rollupOptions: { onwarn },
  },
});
