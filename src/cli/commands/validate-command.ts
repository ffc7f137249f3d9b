import { Command } from 'commander';

/**
 * `workgraph validate FILE...`: every problem as `file:line:column: message`; exit 1 if any, 0 if none, 2 on usage
 * errors (no files given).
 */
export function validateCommand(): Command {
  return new Command('validate')
    .description('check workflow JSON and graph YAML/JSON files; prints file:line:column: message per problem')
    .argument('<files...>', 'files to check (kind told apart by content)')
    .action(async (files: string[]) => {
      await import('reflect-metadata'); // decorated (tsyringe) classes below; serve loads it with its container
      const { validateFiles } = await import('../validate');
      const problems = await validateFiles(files);
      for (const p of problems) process.stdout.write(`${p.file}:${p.line}:${p.column}: ${p.message}\n`);
      if (problems.length === 0) process.stdout.write(`${files.length} file(s) OK\n`);
      process.exitCode = problems.length ? 1 : 0;
    });
}
