import type { CommandRequest, CommandResult } from '../../../../kernel/command-runner';

/**
 * What a verification step needs to run its command: the server's one command runner (the kernel's port, which the
 * tasks module implements: shell, timeout, output tails, process-tree kill on timeout and cancel, every process
 * tracked for shutdown). workflow.module.ts hands over the instance registered under `Tokens.CommandRunner`, so
 * nothing else spawns commands.
 */
export type VerificationRunner = { run(request: CommandRequest): Promise<CommandResult> };

export type { CommandRequest, CommandResult };
