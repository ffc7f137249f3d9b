import * as path from 'node:path';
import { Command } from 'commander';
import { withCommonOptions } from './common-options';
import { missingWorkflowFolders, resolveConfig, type CommonFlags } from '../resolve-config';
import { WorkflowTokens, type WorkflowStorage, type WorkflowListing } from '../../modules/workflow';
import { graphRuntime } from '../../modules/graph';
import type { AppConfig } from '../../kernel/config/app-config';

/** One graph tool as `list` shows it. */
interface ListedGraphTool {
  name: string;
  description: string;
  file: string;
}

/**
 * `workgraph list`: the workflows (and invalid workflow files) and the graph tools this configuration serves. A
 * workflow folder named by `--workflows` (or WORKGRAPH_WORKFLOWS_PATH, or the config file) that does not exist is
 * said so on stderr, as `serve` does; a graph file that does not load is listed with why. Exit 0.
 */
export function listCommand(): Command {
  return withCommonOptions(new Command('list').description('list the workflows and graph tools (--graphs) the server would offer'))
    .option('--json', 'print JSON instead of a table')
    .action(async (flags: CommonFlags & { json?: boolean }) => {
      const { silentLogger } = await import('../../kernel/logger');
      const { createContainer } = await import('../../server/container');
      const config = resolveConfig(flags);
      for (const warning of missingWorkflowFolders(config)) process.stderr.write(`workgraph list: ${warning}\n`);
      const c = createContainer(config, silentLogger);
      const listing = await c.resolve<WorkflowStorage>(WorkflowTokens.WorkflowStorage).list();
      const graphs = await listGraphTools(config);
      if (flags.json) {
        console.log(JSON.stringify({ ...listing, graphTools: graphs.tools, invalidGraphFiles: graphs.failed }, null, 2));
        return;
      }
      printWorkflows(listing);
      if (config.graphPaths.length > 0) {
        console.log('Graph tools:');
        for (const t of graphs.tools) console.log(`  ${t.name.padEnd(28)} ${shortPath(t.file)}${t.description ? `  ${t.description}` : ''}`);
        if (graphs.tools.length === 0) console.log('  (none)');
        if (graphs.failed.length) {
          console.log('Graph files not loaded:');
          for (const f of graphs.failed) console.log(`  ${fileAndReason(f.file, f.reason)}`);
        }
      }
    });
}

function printWorkflows(listing: WorkflowListing): void {
  console.log('Workflows:');
  for (const w of listing.workflows) console.log(`  ${w.id.padEnd(28)} ${w.version.padEnd(8)} ${w.source.padEnd(8)} ${w.name}`);
  if (listing.workflows.length === 0) console.log('  (none)');
  if (listing.invalid.length) {
    console.log('Invalid workflow files:');
    for (const w of listing.invalid) console.log(`  ${fileAndReason(w.file, w.reason)}`);
  }
}

/** The tools of the configured graph files, each file loaded on its own (a bad file never hides the others). */
async function listGraphTools(config: AppConfig): Promise<{ tools: ListedGraphTool[]; failed: Array<{ file: string; reason: string }> }> {
  if (config.graphPaths.length === 0) return { tools: [], failed: [] };
  const { GraphHost, expandGraphPaths, readMcpConfigFiles } = graphRuntime();
  const failed: Array<{ file: string; reason: string }> = [];
  const files: string[] = [];
  for (const p of config.graphPaths) {
    try {
      files.push(...(await expandGraphPaths(p)));
    } catch (e) {
      failed.push({ file: p, reason: (e as Error).message });
    }
  }
  const host = new GraphHost(config.mcpConfigFiles.length ? { mcpServers: readMcpConfigFiles(config.mcpConfigFiles) } : {});
  const result = await host.reloadFiles([...new Set(files)]);
  for (const f of result.failed) failed.push({ file: f.file, reason: f.error.message });
  const tools = host.listTools().map((t) => ({ name: t.name, description: t.description ?? '', file: t.file ?? '' }));
  await host.close();
  return { tools, failed };
}

/** A path under the working directory relative to it (as the user typed it, usually); others as they are. */
function shortPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** `file: reason`, the file named once: a reason that starts with it (`x.yaml:2:9: …`, `x.yaml: cannot be read`) as it is. */
function fileAndReason(file: string, reason: string): string {
  return reason.startsWith(`${file}:`) ? reason : `${file}: ${reason}`;
}
