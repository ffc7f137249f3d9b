import { Command } from 'commander';
import { KnowledgeTokens, type KnowledgeBackupInfo, type KnowledgeStore, type RestoreKnowledgeBackupOutput, type SearchNodesInput, type SearchNodesOutput } from '../../modules/knowledge';
import type { UseCase } from '../../kernel/use-case';
import { withStoreOptions } from './common-options';
import { storePlace } from './store-place';
import { resolveConfig, type CommonFlags } from '../resolve-config';
import { lineLogger } from '../line-logger';
import { snippetText, stdoutTakesColor } from '../snippet-text';

/**
 * `workgraph knowledge search PROJECT QUERY`, `workgraph knowledge backups PROJECT` and `workgraph knowledge
 * restore-backup ID`: search_nodes and the backups every delete_nodes takes, in the data dir or in PostgreSQL
 * (`--database-url`), through the same use cases as the server.
 */
export function knowledgeCommand(): Command {
  const knowledge = new Command('knowledge').description('knowledge graph search and backups (data dir, or PostgreSQL with --database-url)');
  knowledge.addCommand(
    withStoreOptions(new Command('search').description('ranked search of a knowledge graph, best first (the search_nodes tool; docs/knowledge-graph.md "Search")'))
      .argument('<project>', "project name, folder or id; '*' searches every project")
      .argument('<query...>', 'words (all required), "a phrase", -excluded, prefix*, a OR b — quote the whole query for phrases')
      .option('--role <role>', 'only nodes of this role (actor, critic, summary)')
      .option('--tag <tag>', 'only nodes with this tag (repeatable: all must match)', (v: string, prev: string[] = []) => [...prev, v])
      .option('--since <time>', 'only nodes created at or after this ISO time')
      .option('--until <time>', 'only nodes created at or before this ISO time')
      .option('--include-deleted', 'search soft-deleted nodes too')
      .option('--limit <n>', 'hits per page (1-100)', '10')
      .option('--cursor <cursor>', 'the next page: the cursor a previous search printed')
      .option('--json', 'print the answer as JSON (as the tool answers)')
      .addHelpText('after', `\nExamples:\n  workgraph knowledge search my-app retry backoff\n  workgraph knowledge search my-app '"exponential backoff" -flaky'\n  workgraph knowledge search '*' 'cach* OR redis' --json`)
      .action(
        async (
          project: string,
          words: string[],
          flags: CommonFlags & { json?: boolean; role?: string; tag?: string[]; since?: string; until?: string; includeDeleted?: boolean; limit: string; cursor?: string },
        ) =>
          run('search', flags, async (resolve, missing) => {
            const limit = Number(flags.limit);
            if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Error(`--limit: expected a whole number from 1 to 100 (got '${flags.limit}')`);
            if (flags.role !== undefined && !['actor', 'critic', 'summary'].includes(flags.role)) throw new Error(`--role: expected actor, critic or summary (got '${flags.role}')`);
            const input = {
              ...(project === '*' ? { projects: '*' } : { projectContext: project }),
              query: words.join(' '),
              limit,
              ...(flags.role ? { role: flags.role } : {}),
              ...(flags.tag ? { tags: flags.tag } : {}),
              ...(flags.since ? { since: flags.since } : {}),
              ...(flags.until ? { until: flags.until } : {}),
              ...(flags.includeDeleted ? { includeDeleted: true } : {}),
              ...(flags.cursor ? { cursor: flags.cursor } : {}),
            } as SearchNodesInput;
            const out = await resolve<SearchNodesInput, SearchNodesOutput>(KnowledgeTokens.SearchKnowledgeNodes).execute(input);
            // No hit: say so plainly when there was nothing to search (a mistyped project or data dir), not "no match".
            if (!out.hits.length && !flags.cursor) await missing(out.project ?? undefined);
            if (flags.json) return console.log(JSON.stringify(out, null, 2));
            const where = out.project ?? 'every project';
            if (!out.hits.length) return console.log(`No knowledge node ${out.project ? `of project '${where}'` : 'in any project'} matches ${input.query}.`);
            // A total past the store's cap is a lower bound: "10,000+".
            const total = `${out.total.toLocaleString('en-US')}${out.totalExact ? '' : '+'}`;
            console.log(`${total} node(s) of ${out.project ? `project '${where}'` : where} match; best first:`);
            const color = stdoutTakesColor();
            for (const h of out.hits) {
              console.log(`  ${h.score.toFixed(3)}  ${out.project ? '' : `${h.project}/`}${h.id}  ${h.role}${h.tags.length ? ` [${h.tags.join(', ')}]` : ''}${h.deleted ? ' (deleted)' : ''}  ${h.createdAt}`);
              console.log(`         ${snippetText(h.snippet, { color })}`);
            }
            if (out.nextCursor) console.log(`More: the same command with --cursor ${out.nextCursor}`);
          }),
      ),
  );
  knowledge.addCommand(
    withStoreOptions(new Command('backups').description("list a project's knowledge backups, newest first (one is taken before every delete)"))
      .argument('<project>', 'project name or id')
      .option('--json', 'print JSON')
      .action(async (project: string, flags: CommonFlags & { json?: boolean }) =>
        run('backups', flags, async (resolve, missing) => {
          const out = await resolve<{ projectContext: string }, { project: string; backups: KnowledgeBackupInfo[] }>(KnowledgeTokens.ListKnowledgeBackups).execute({ projectContext: project });
          if (!out.backups.length) await missing(out.project);
          if (flags.json) return console.log(JSON.stringify(out, null, 2));
          if (!out.backups.length) return console.log(`No knowledge backups for project '${out.project}' (one is taken before every delete_nodes).`);
          console.log(`Knowledge backups of project '${out.project}', newest first:`);
          for (const b of out.backups) console.log(`  ${b.id}  ${b.modifiedAt}  ${b.nodes !== undefined ? `${b.nodes} node(s)` : `${b.sizeBytes} bytes`}`);
          console.log('Bring one back with: workgraph knowledge restore-backup ID');
        }),
      ),
  );
  knowledge.addCommand(
    withStoreOptions(new Command('restore-backup').description('bring back the nodes of a backup that the graph lacks (nothing in the graph is overwritten)'))
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
/**
 * Throws when there is no knowledge graph to read: `project` has none (nodes, deleted or not), or — no project given
 * (`*`) — no project has one. The message names where it looked.
 */
type Missing = (project?: string) => Promise<void>;

/**
 * Builds the container as `serve` does, runs `fn`, closes the database pool; errors are one line on stderr, exit 1.
 * The store's warnings are lines on stderr too (a search that finds the index missing, damaged or stale rebuilds it
 * from the graph and says so, naming the project); stdout holds only the answer.
 */
async function run(name: string, flags: CommonFlags, fn: (resolve: Resolve, missing: Missing) => Promise<void>): Promise<void> {
  const { createContainer } = await import('../../server/container');
  const { Tokens } = await import('../../kernel/tokens');
  const { noopCallContext } = await import('../../kernel/call-context');
  const config = resolveConfig(flags);
  const c = createContainer(config, lineLogger(`workgraph knowledge ${name}`));
  try {
    const missing: Missing = async (project) => {
      // The store's project list: a directory listing with two stats each (files), one table (PostgreSQL).
      const projects = (await c.resolve<KnowledgeStore>(KnowledgeTokens.KnowledgeStore).listProjects()).map((p) => p.project);
      const there = project !== undefined ? projects.includes(project) : projects.length > 0;
      if (there) return;
      const what = project !== undefined ? `project '${project}' has no knowledge graph` : 'no project has a knowledge graph';
      throw new Error(`${what} (${await storePlace(config)}; \`workgraph projects\` lists what is there)`);
    };
    await fn(<I, O>(token: symbol) => {
      const useCase = c.resolve<UseCase<I, O>>(token);
      return { execute: (input: I) => useCase.execute(input, noopCallContext()) } as UseCase<I, O>;
    }, missing);
  } catch (e) {
    console.error(`workgraph knowledge ${name}: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    if (config.database) await c.resolve<{ close(): Promise<void> }>(Tokens.Database).close();
  }
}
