import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { PathPolicy } from '../../../../kernel/path-policy';
import type { ScaffoldFile, ScaffoldFileWriter } from '../ports/scaffold-file-writer';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { scaffoldProjectDocsSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type ScaffoldProjectDocsInput = ToolInput<typeof scaffoldProjectDocsSchemas>;

/** The tool's answer, as its output schema describes it. */
export type ScaffoldProjectDocsOutput = ToolOutput<typeof scaffoldProjectDocsSchemas>;

/**
 * `scaffold_project_docs`: writes ARCHITECTURE.md, the phase task files and TEST_CASES.md into targetDirectory.
 * Every name is checked (inside the folder, no symlink out, not existing unless overwrite) before anything is written.
 */
@injectable()
export class ScaffoldProjectDocs implements UseCase<ScaffoldProjectDocsInput, ScaffoldProjectDocsOutput> {
  constructor(
    @inject(Tokens.PathPolicy) private readonly paths: PathPolicy,
    @inject(TasksTokens.ScaffoldFileWriter) private readonly writer: ScaffoldFileWriter,
  ) {}

  async execute(input: ScaffoldProjectDocsInput, ctx?: CallContext): Promise<ScaffoldProjectDocsOutput> {
    const dir = await this.paths.resolveAllowedDirectory(input.targetDirectory, 'targetDirectory', {
      mustExist: false,
      clientRoots: ctx?.clientRoots,
      identity: ctx?.identity,
    });
    const files: ScaffoldFile[] = [
      { relativePath: 'ARCHITECTURE.md', content: input.architectureContent, field: 'architectureContent' },
      ...input.phaseTasks.map((p, i) => ({ relativePath: p.fileName, content: p.content, field: `phaseTasks[${i}].fileName` })),
      { relativePath: 'TEST_CASES.md', content: input.testCasesContent, field: 'testCasesContent' },
    ];
    const written = await this.writer.writeAll(dir, files, { overwrite: input.overwrite ?? false });
    return { files_written: written };
  }
}
