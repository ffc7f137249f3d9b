import { Command } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';
import { WorkflowTokens, type WorkflowStorage } from '../../modules/workflow';

/** `workgraph list`: the workflows (and invalid workflow files) and graph tools this configuration serves. */
export function listCommand(): Command {
  return withCommonOptions(new Command('list').description('list the workflows and graph tools the server would offer'))
    .option('--json', 'print JSON instead of a table')
    .action(async (flags: CommonFlags & { json?: boolean }) => {
      const { silentLogger } = await import('../../kernel/logger');
      const { createContainer } = await import('../../server/container');
      const { Tokens } = await import('../../kernel/tokens');
      const config = resolveConfig(flags);
      const c = createContainer(config, silentLogger);
      const storage = c.resolve<WorkflowStorage>(WorkflowTokens.WorkflowStorage);
      const listing = await storage.list();
      if (flags.json) {
        console.log(JSON.stringify(listing, null, 2));
        return;
      }
      console.log('Workflows:');
      for (const w of listing.workflows) console.log(`  ${w.id.padEnd(28)} ${w.version.padEnd(8)} ${w.source.padEnd(8)} ${w.name}`);
      if (listing.workflows.length === 0) console.log('  (none)');
      if (listing.invalid.length) {
        console.log('Invalid workflow files:');
        for (const w of listing.invalid) console.log(`  ${w.file}: ${w.reason}`);
      }
    });
}
