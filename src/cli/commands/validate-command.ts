import { Command } from 'commander';

/**
 * `workgraph validate FILE|DIR...`: every problem as `file:line:column: message` (each file's by line); a folder
 * stands for its .json/.yaml/.yml files. Exit 1 if any, 0 if none, 2 on usage errors (no files given).
 */
export function validateCommand(): Command {
  return new Command('validate')
    .description('check workflow JSON and graph YAML/JSON files; prints file:line:column: message per problem')
    .argument('<files...>', 'files to check (kind told apart by content), or folders: their .json, .yaml and .yml files')
    .action(async (files: string[]) => {
      await import('reflect-metadata'); // decorated (tsyringe) classes below; serve loads it with its container
      const { validateFiles } = await import('../validate');
      // The format line goes to stderr: stdout keeps one `file:line:column: message` per problem, for tools that parse it.
      const checked = new Set<string>();
      const problems = await validateFiles(files, {
        onChecked: (file) => checked.add(file),
        onNote: (n) => process.stderr.write(`${n.file}: ${n.message}\n`),
      });
      for (const p of problems) process.stdout.write(`${p.file}:${p.line}:${p.column}: ${p.severity ? `${p.severity}: ` : ''}${p.message}\n`);
      const errors = problems.filter((p) => p.severity !== 'warning');
      if (errors.length === 0) process.stdout.write(`${checked.size} file(s) OK${problems.length > 0 ? ` (${problems.length} warning(s))` : ''}\n`);
      // Warnings (missing references, format-dependent conditions) leave the exit code unchanged.
      process.exitCode = errors.length ? 1 : 0;
    });
}
