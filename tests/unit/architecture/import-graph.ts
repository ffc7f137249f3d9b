import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The import graph of `src/`: every file's imports (static, type-only, `export … from`, dynamic `import()` and
 * `require()`), resolved to files. Read with the TypeScript parser, so comments and strings never count as imports.
 * The layer rules (docs/architecture.md) are checked over this graph by layer-rules.test.ts.
 */
export interface ImportEdge {
  from: string;
  /** Resolved file (repository-relative, e.g. `src/kernel/errors.ts`), or the bare package/builtin name. */
  to: string;
  /** A package or Node builtin, not a file of ours. */
  external: boolean;
  typeOnly: boolean;
}

export const REPO_ROOT = path.resolve(__dirname, '../../..');

export function listSourceFiles(dir = path.join(REPO_ROOT, 'src')): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules') continue;
      out.push(...listSourceFiles(p));
    } else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path.relative(REPO_ROOT, p).split(path.sep).join('/'));
  }
  return out.sort();
}

function resolveRelative(from: string, spec: string): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}.json`]) {
    const abs = path.join(REPO_ROOT, c);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) return c;
  }
  return undefined;
}

export function importsOf(file: string): ImportEdge[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (spec.startsWith('.')) {
      const to = resolveRelative(file, spec);
      edges.push({ from: file, to: to ?? `${path.posix.dirname(file)}/${spec} (unresolved)`, external: false, typeOnly });
    } else edges.push({ from: file, to: spec, external: true, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) {
        add((node.arguments[0] as ts.StringLiteral).text, false);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

/** Every cycle's files (strongly connected components of more than one file, or a file importing itself). */
export function findCycles(files: string[], edges: ImportEdge[]): string[][] {
  const adj = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) if (!e.external && adj.has(e.to)) adj.get(e.from)!.push(e.to);
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sccs: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v)!) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || adj.get(v)!.includes(v)) sccs.push(comp.sort());
    }
  };
  for (const f of files) if (!idx.has(f)) strong(f);
  return sccs;
}
