import { Command } from 'commander';
import { KnowledgeTokens, type KnowledgeBackupInfo, type RestoreKnowledgeBackupOutput } from '../../modules/knowledge';
import type { UseCase } from '../../kernel/use-case';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';

/**
 * `workgraph knowledge backups PROJECT` and `workgraph knowledge restore-backup ID`: the backups every delete_nodes
 * takes, in the data dir or in PostgreSQL (`--database-url`), through the same use cases as the server.
 */
export function knowledgeCommand(): Command {
  const knowledge = new Command('knowledge').description('knowledge graph backups (data dir, or PostgreSQL with --database-url)');
  knowledge.addCommand(
    withCommonOptions(new Command('backups').description("list a project's knowledge backups, newest first (one is taken before every delete)"))
      .argument('<project>', 'project name or id')
      .option('--json', 'print JSON')
      .action(async (project: string, flags: CommonFlags & { json?: boolean }) =>
        run('backups', flags, async (resolve) => {
          const out = await resolve<{ projectContext: string }, { project: string; backups: KnowledgeBackupInfo[] }>(KnowledgeTokens.ListKnowledgeBackups).execute({ projectContext: project });
          if (flags.json) return console.log(JSON.stringify(out, null, 2));
          if (!out.backups.length) return console.log(`No knowledge backups for project '${out.project}' (one is taken before every delete_nodes).`);
          console.log(`Knowledge backups of project '${out.project}', newest first:`);
          for (const b of out.backups) console.log(`  ${b.id}  ${b.modifiedAt}  ${b.nodes !== undefined ? `${b.nodes} node(s)` : `${b.sizeBytes} bytes`}`);
          console.log('Bring one back with: workgraph knowledge restore-backup ID');
        }),
      ),
  );
  knowledge.addCommand(
    withCommonOptions(new Command('restore-backup').description('bring back the nodes of a backup that the graph lacks (nothing in the graph is overwritten)'))
      .argument('<id>', 'backup id as `workgraph knowledge backups` lists it, or the backupPath delete_nodes answered')
      .option('--json', 'print JSON')
      .action(async (id: string, flags: CommonFlags & { json?: boolean }) =>
        run('restore-backup', flags, async (resolve) => {
          const out = await resolve<{ backupId: string }, RestoreKnowledgeBackupOutput>(KnowledgeTokens.RestoreKnowledgeBackup).execute({ backupId: id });
          if (flags.json) return console.log(JSON.stringify(out, null, 2));
          console.log(out.message);
          for (const d of out.droppedParents) console.log(`  node ${d.nodeId}: parent(s) ${d.parents.join(', ')} no longer exist and were dropped`);
        }),
      ),
  );
  return knowledge;
}

type Resolve = <I, O>(token: symbol) => UseCase<I, O>;

/** Builds the container as `serve` does, runs `fn`, closes the database pool; errors are one line on stderr, exit 1. */
async function run(name: string, flags: CommonFlags, fn: (resolve: Resolve) => Promise<void>): Promise<void> {
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const { Tokens } = await import('../../kernel/tokens');
  const { noopCallContext } = await import('../../kernel/call-context');
  const config = resolveConfig(flags);
  const c = createContainer(config, silentLogger);
  try {
    await fn(<I, O>(token: symbol) => {
      const useCase = c.resolve<UseCase<I, O>>(token);
      return { execute: (input: I) => useCase.execute(input, noopCallContext()) } as UseCase<I, O>;
    });
  } catch (e) {
    console.error(`workgraph knowledge ${name}: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    if (config.database) await c.resolve<{ close(): Promise<void> }>(Tokens.Database).close();
  }
}
