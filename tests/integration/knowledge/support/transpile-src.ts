import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Transpiles `src/` (TypeScript → CommonJS, no type check) into `<outDir>/src` so plain `node` child processes can
 * run the real store and use cases. Run the children with NODE_PATH pointing at the repo's node_modules.
 */
export function transpileSrc(outDir: string, folders = ['kernel', 'modules/knowledge']): string {
  const srcOut = path.join(outDir, 'src');
  for (const folder of folders) {
    const from = path.join(ROOT, 'src', folder);
    const files = fs.statSync(from).isDirectory() ? walk(from) : [from];
    for (const file of files) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const rel = path.relative(path.join(ROOT, 'src'), file);
      const target = path.join(srcOut, rel.replace(/\.ts$/, '.js'));
      const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
        },
        fileName: file,
      });
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, outputText);
    }
  }
  return srcOut;
}

export const NODE_MODULES = path.join(ROOT, 'node_modules');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
