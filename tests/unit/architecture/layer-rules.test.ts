import type { ImportEdge } from './import-graph';
import { checkSource, placeOf, violations } from './layer-rules';

/** The rules of docs/architecture.md, checked over the real import graph of src/ (and proven on small graphs). */
describe('layer rules', () => {
  it('src/ keeps every rule: layers, module boundaries, a pure kernel for domains, no import cycles', () => {
    const { files, edges, violations: found } = checkSource();
    expect(files.length).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(300);
    expect(found).toEqual([]);
  });

  it('every module has its index, tools, module wiring, tokens and the three layers', () => {
    const { files } = checkSource();
    for (const m of ['workflow', 'graph', 'tasks', 'knowledge']) {
      for (const f of ['index.ts', `${m}.tools.ts`, `${m}.module.ts`, `application/${m}.tokens.ts`]) expect(files).toContain(`src/modules/${m}/${f}`);
      for (const layer of ['domain', 'application', 'infrastructure']) expect(files.some((f) => f.startsWith(`src/modules/${m}/${layer}/`))).toBe(true);
    }
  });

  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, external: !to.startsWith('src/'), typeOnly });
  const files = [
    'src/kernel/errors.ts',
    'src/kernel/files/atomic-write.ts',
    'src/modules/a/domain/rule.ts',
    'src/modules/a/domain/other.ts',
    'src/modules/a/application/use-case.ts',
    'src/modules/a/infrastructure/store.ts',
    'src/modules/a/index.ts',
    'src/modules/a/a.module.ts',
    'src/modules/b/domain/thing.ts',
    'src/modules/b/index.ts',
    'src/server/server.ts',
    'src/cli/main.ts',
    'src/dashboard/dashboard-app.ts',
    'src/dashboard/web/src/main.tsx',
    'src/dashboard/web/src/pages/page.tsx',
  ];
  const check = (...edges: ImportEdge[]) => violations(files, [edge('src/kernel/files/atomic-write.ts', 'node:fs'), ...edges]);

  it('places files by folder', () => {
    expect(placeOf('src/modules/a/domain/x.ts')).toEqual({ kind: 'domain', module: 'a' });
    expect(placeOf('src/modules/a/a.tools.ts')).toEqual({ kind: 'module-root', module: 'a' });
    expect(placeOf('src/kernel/x.ts')).toEqual({ kind: 'kernel' });
  });

  it('a domain file may not use Node I/O, frameworks, impure kernel files, outer layers or other modules', () => {
    expect(check(edge('src/modules/a/domain/rule.ts', 'node:fs'))).toHaveLength(1);
    expect(check(edge('src/modules/a/domain/rule.ts', 'child_process'))).toHaveLength(1);
    expect(check(edge('src/modules/a/domain/rule.ts', 'tsyringe'))).toHaveLength(1);
    expect(check(edge('src/modules/a/domain/rule.ts', 'src/kernel/files/atomic-write.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/a/domain/rule.ts', 'src/modules/a/application/use-case.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/a/domain/rule.ts', 'src/modules/b/index.ts'))).toHaveLength(1);
    // allowed: its own domain, the kernel's pure parts, pure libraries
    expect(check(edge('src/modules/a/domain/rule.ts', 'src/modules/a/domain/other.ts'), edge('src/modules/a/domain/rule.ts', 'src/kernel/errors.ts'), edge('src/modules/a/domain/rule.ts', 'jsonata'))).toEqual([]);
  });

  it('an application file may not import infrastructure, server, cli or its module wiring', () => {
    expect(check(edge('src/modules/a/application/use-case.ts', 'src/modules/a/infrastructure/store.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/a/application/use-case.ts', 'src/server/server.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/a/application/use-case.ts', 'src/cli/main.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/a/application/use-case.ts', 'src/modules/a/a.module.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/a/application/use-case.ts', 'src/modules/a/domain/rule.ts'))).toEqual([]);
  });

  it("code outside a module reaches it only through its index.ts; the kernel imports no module", () => {
    expect(check(edge('src/server/server.ts', 'src/modules/a/infrastructure/store.ts'))).toHaveLength(1);
    expect(check(edge('src/modules/b/domain/thing.ts', 'src/modules/a/domain/rule.ts')).length).toBeGreaterThan(0);
    expect(check(edge('src/kernel/errors.ts', 'src/modules/a/index.ts'))).toEqual(['src/kernel/errors.ts imports src/modules/a/index.ts: the kernel imports no module, server, cli or dashboard']);
    expect(check(edge('src/server/server.ts', 'src/modules/a/index.ts'))).toEqual([]);
  });

  it('the dashboard is composed from below; its browser code imports only itself and no Node API', () => {
    expect(check(edge('src/dashboard/dashboard-app.ts', 'src/server/server.ts'))).toHaveLength(1);
    expect(check(edge('src/dashboard/dashboard-app.ts', 'src/cli/main.ts'))).toHaveLength(1);
    expect(check(edge('src/server/server.ts', 'src/dashboard/dashboard-app.ts'), edge('src/cli/main.ts', 'src/dashboard/dashboard-app.ts'))).toEqual([]);
    expect(check(edge('src/dashboard/web/src/main.tsx', 'src/dashboard/dashboard-app.ts'))).toHaveLength(1);
    expect(check(edge('src/dashboard/dashboard-app.ts', 'src/dashboard/web/src/main.tsx'))).toHaveLength(1);
    expect(check(edge('src/dashboard/web/src/main.tsx', 'node:fs'))).toHaveLength(1);
    expect(check(edge('src/dashboard/web/src/main.tsx', 'react'), edge('src/dashboard/web/src/main.tsx', 'src/dashboard/web/src/pages/page.tsx'))).toEqual([]);
    expect(check(edge('src/dashboard/web/src/main.tsx', 'src/dashboard/web/src/pages/page.tsx'), edge('src/dashboard/web/src/pages/page.tsx', 'src/dashboard/web/src/main.tsx'))).toEqual([
      'import cycle: src/dashboard/web/src/main.tsx -> src/dashboard/web/src/pages/page.tsx',
    ]);
  });

  it('reads the browser code too (the import graph covers src/dashboard/web)', () => {
    const { files } = checkSource();
    expect(files).toContain('src/dashboard/web/src/main.tsx');
  });

  it('finds import cycles, type-only imports included', () => {
    const found = check(edge('src/modules/a/domain/rule.ts', 'src/modules/a/domain/other.ts'), edge('src/modules/a/domain/other.ts', 'src/modules/a/domain/rule.ts', true));
    expect(found).toEqual(['import cycle: src/modules/a/domain/other.ts -> src/modules/a/domain/rule.ts']);
  });
});
