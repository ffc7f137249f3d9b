import type { Server } from '@modelcontextprotocol/server';
import { WorkflowTokens, type WorkflowListing } from '../modules/workflow';
import { authOf, type ResourceCall } from './resource-call';

/**
 * Every workflow is an MCP prompt: prompts/list names them, prompts/get answers a message telling the agent to start a
 * session with workflow_start — getting it starts nothing.
 */
export function installPrompts(sdk: Server, call: ResourceCall): void {
  sdk.setRequestHandler('prompts/list', async (_request, ctx) => {
    const { workflows } = await call<WorkflowListing>(WorkflowTokens.ListWorkflows, {}, authOf(ctx));
    return {
      prompts: workflows.map((w) => ({
        name: w.id,
        title: w.name,
        description: `${w.description} (starts a durable workgraph session)`,
        arguments: [
          { name: 'goal', description: 'What this run is for (kept with the session, matched by workflow_resume).', required: false },
          { name: 'gitBranch', description: 'The branch worked on.', required: false },
        ],
      })),
    };
  });

  sdk.setRequestHandler('prompts/get', async (request, ctx) => {
    const workflow = await call<{ id: string; name: string; description: string }>(WorkflowTokens.GetWorkflow, { id: request.params.name, mode: 'metadata' }, authOf(ctx));
    const args = request.params.arguments ?? {};
    const startArgs: Record<string, string> = { workflowId: workflow.id };
    if (args.goal) startArgs.goal = args.goal;
    if (args.gitBranch) startArgs.gitBranch = args.gitBranch;
    const text = [
      `Run the workgraph workflow "${workflow.name}" (${workflow.id}) as a durable session: ${workflow.description}`,
      '',
      `1. Call the tool workflow_start with ${JSON.stringify(startArgs)}${args.goal ? '' : ' (add a one-line "goal" saying what this run is for)'}.`,
      '2. Do the step it returns (its instructions are in guidance.prompt).',
      '3. Call workflow_continue with the continueToken of the last answer and output.notesMarkdown saying what you did; repeat until isComplete is true.',
      '4. If an answer is "blocked", fix exactly what its blockers list and send it again with the retryToken; if the attempts are exhausted, stop and ask me.',
      'If this chat ends before the run does, a new chat picks it up with workflow_resume.',
    ].join('\n');
    return { description: `Start a session of ${workflow.name}`, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
  });
}
