import { builtinModules } from 'node:module';
import { findCycles, importsOf, listSourceFiles, type ImportEdge } from './import-graph';

/**
 * The rules of the house (docs/architecture.md, "What may import what"), as a function from the import graph to
 * the list of violations. layer-rules.test.ts runs it over src/ and over small synthetic graphs.
 */
export interface Place {
  kind: 'kernel' | 'domain' | 'application' | 'infrastructure' | 'module-root' | 'server' | 'cli' | 'dashboard' | 'web' | 'api' | 'other';
  module?: string;
}

export function placeOf(file: string): Place {
  const m = /^src\/modules\/([^/]+)\/(?:(domain|application|infrastructure)\/)?/.exec(file);
  if (m) return { kind: (m[2] as Place['kind']) ?? 'module-root', module: m[1] };
  if (file.startsWith('src/kernel/')) return { kind: 'kernel' };
  if (file.startsWith('src/server/')) return { kind: 'server' };
  if (file.startsWith('src/cli/')) return { kind: 'cli' };
  if (file.startsWith('src/dashboard/web/')) return { kind: 'web' };
  if (file.startsWith('src/dashboard/')) return { kind: 'dashboard' };
  if (file === 'src/index.ts') return { kind: 'api' };
  return { kind: 'other' };
}

const BUILTINS = new Set(builtinModules.flatMap((b) => [b, `node:${b}`]));
/** Packages a domain file may not use: frameworks and anything doing I/O. */
const DOMAIN_FORBIDDEN_PACKAGES = [/^tsyringe$/, /^reflect-metadata$/, /^@modelcontextprotocol\//, /^pino/, /^proper-lockfile$/, /^commander$/, /^pg$/];

export function isNodeBuiltin(spec: string): boolean {
  return BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]);
}

/** Kernel files that use no Node API and import only such kernel files: what a domain may import. */
export function pureKernelFiles(files: string[], edges: ImportEdge[]): Set<string> {
  const kernel = files.filter((f) => placeOf(f).kind === 'kernel');
  const impure = new Set<string>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const f of kernel) {
      if (impure.has(f)) continue;
      const bad = edges.some(
        (e) => e.from === f && !e.typeOnly && ((e.external && (isNodeBuiltin(e.to) || DOMAIN_FORBIDDEN_PACKAGES.some((r) => r.test(e.to)))) || (!e.external && impure.has(e.to))),
      );
      if (bad) {
        impure.add(f);
        changed = true;
      }
    }
  }
  return new Set(kernel.filter((f) => !impure.has(f)));
}

export function violations(files: string[], edges: ImportEdge[]): string[] {
  const out: string[] = [];
  const pure = pureKernelFiles(files, edges);
  for (const e of edges) {
    const from = placeOf(e.from);
    const line = (why: string) => out.push(`${e.from} imports ${e.to}: ${why}`);
    if (e.external) {
      if (from.kind === 'web' && isNodeBuiltin(e.to)) line('the dashboard\'s browser code uses no Node API');
      if (from.kind === 'domain' && !e.typeOnly && (isNodeBuiltin(e.to) || DOMAIN_FORBIDDEN_PACKAGES.some((r) => r.test(e.to)))) {
        line('a domain file uses no Node API, framework or I/O package');
      }
      continue;
    }
    if (e.to.endsWith('(unresolved)')) {
      line('the import does not resolve to a file');
      continue;
    }
    const to = placeOf(e.to);
    if (from.kind === 'web' && to.kind !== 'web') line('the dashboard\'s browser code imports only its own files (it talks to the server over HTTP)');
    if (from.kind !== 'web' && to.kind === 'web') line('nothing outside the browser code imports it (Vite bundles it on its own)');
    if (from.kind === 'dashboard' && (to.kind === 'server' || to.kind === 'cli')) {
      line('the dashboard is composed from below: it never imports the server or the CLI (they hand it what it needs)');
    }
    if (from.kind === 'kernel' && to.kind !== 'kernel') line('the kernel imports no module, server, cli or dashboard');
    if (from.kind === 'domain') {
      const ok = (to.kind === 'domain' && to.module === from.module) || (to.kind === 'kernel' && (e.typeOnly || pure.has(e.to)));
      if (!ok) line(`a domain file imports only its own module's domain and the kernel's pure parts`);
    }
    if (from.kind === 'application' && (to.kind === 'infrastructure' || to.kind === 'server' || to.kind === 'cli' || to.kind === 'dashboard' || (to.kind === 'module-root' && to.module === from.module))) {
      line('an application file never imports infrastructure, server, cli, the dashboard or its module\'s wiring');
    }
    if (to.module && to.module !== from.module && e.to !== `src/modules/${to.module}/index.ts`) {
      line(`code outside the ${to.module} module imports it only through src/modules/${to.module}/index.ts`);
    }
  }
  for (const cycle of findCycles(files, edges)) out.push(`import cycle: ${cycle.join(' -> ')}`);
  return out;
}

export function checkSource(): { files: string[]; edges: ImportEdge[]; violations: string[] } {
  const files = listSourceFiles();
  const edges = files.flatMap(importsOf);
  return { files, edges, violations: violations(files, edges) };
}
