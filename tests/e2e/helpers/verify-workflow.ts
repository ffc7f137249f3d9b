import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from './server-process';

/**
 * A temp folder with a workflow whose first step is proven by `verification` (issue 24's e2e tests), a workspace the
 * command runs in, and the server arguments that serve the workflow and allow the folder.
 */
export function verifyWorkflowSetup(prefix: string, workflowId: string, verification: Record<string, unknown>) {
  const tmp = tempDir(prefix);
  const workflows = path.join(tmp.dir, 'workflows');
  const ws = path.join(tmp.dir, 'ws');
  fs.mkdirSync(workflows);
  fs.mkdirSync(ws);
  fs.writeFileSync(
    path.join(workflows, 'verify.json'),
    JSON.stringify({
      id: workflowId,
      name: 'Verify',
      description: 'A step proven by a command.',
      version: '1.0.0',
      steps: [
        { id: 'build', title: 'Build', prompt: 'Build.', verification },
        { id: 'ship', title: 'Ship', prompt: 'Ship.' },
      ],
    }),
  );
  return { tmp, ws, args: ['--workflows', workflows, '--allow-root', tmp.dir] };
}
