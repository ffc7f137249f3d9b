import type { CommandRequest, CommandResult } from '../../../tasks';

/**
 * What a verification step needs to run its command: the tasks module's command runner (shell, timeout, output
 * tails, process-tree kill on timeout and cancel, every process tracked for shutdown). The composition root
 * (workflow.module.ts) hands the tasks module's own instance over, so nothing else spawns commands.
 */
export interface VerificationRunner {
  run(request: CommandRequest): Promise<CommandResult>;
}

export type { CommandRequest, CommandResult };
