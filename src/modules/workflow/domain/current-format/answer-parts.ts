import type { ResolvedStep } from '../step-resolution';
import type { AssessmentDefinition, Workflow } from '../types';
import { CONTRACTS } from './contracts';
import { exampleAssessment } from './output-check';

/** The output contract as the step answer states it: enough to send a valid artifact without the schema. */
export interface ContractAnswer {
  contractRef: string;
  required: boolean;
  /** The `kind` the artifact carries. */
  kind: string;
  /** An artifact that satisfies the contract. */
  example: Record<string, unknown>;
  /** Where its JSON Schema is. */
  schema: string;
}

export interface AssessmentAnswer {
  id: string;
  purpose?: string;
  dimensions: { id: string; purpose?: string; levels: string[] }[];
  /** An assessment artifact of the right shape (pick your own levels). */
  example: Record<string, unknown>;
}

export function contractAnswer(step: ResolvedStep): ContractAnswer | undefined {
  const ref = step.outputContract;
  const info = ref ? CONTRACTS[ref.contractRef] : undefined;
  if (!ref || !info) return undefined;
  return {
    contractRef: info.id,
    required: ref.required !== false,
    kind: info.kind,
    example: info.example,
    schema: `workflow_get_schema {"contract": "${info.id}"} (spec/contracts/${info.schemaFile})`,
  };
}

export function assessmentAnswers(workflow: Workflow, step: ResolvedStep): AssessmentAnswer[] | undefined {
  const refs = step.assessmentRefs ?? [];
  if (refs.length === 0) return undefined;
  const defs = new Map((workflow.assessments ?? []).map((a) => [a.id, a] as [string, AssessmentDefinition]));
  return refs
    .map((r) => defs.get(r))
    .filter((d): d is AssessmentDefinition => d !== undefined)
    .map((d) => ({
      id: d.id,
      ...(d.purpose ? { purpose: d.purpose } : {}),
      dimensions: d.dimensions.map((x) => ({ id: x.id, ...(x.purpose ? { purpose: x.purpose } : {}), levels: x.levels })),
      example: exampleAssessment(d),
    }));
}

/** The markdown the current format adds to guidance.prompt (delegations, output to send, metrics). */
export function currentFormatSections(step: ResolvedStep, contract: ContractAnswer | undefined, assessments: AssessmentAnswer[] | undefined): string[] {
  const parts: string[] = [];
  const delegations = step.extras?.delegations;
  if (delegations) {
    const lines = delegations.map((d) => {
      const bits = [`\`${d.workflowId}\``];
      if (d.modelTier) bits.push(`model tier ${d.modelTier}`);
      if (d.args && Object.keys(d.args).length > 0) bits.push(`args ${JSON.stringify(d.args)}`);
      if (d.contextMapping) bits.push(`context ${JSON.stringify(d.contextMapping)}`);
      return `- ${bits.join('; ')}`;
    });
    parts.push(
      `## Parallel delegations\n${lines.length > 0 ? `Run these in parallel (each a workflow you start for a helper), then bring their results together yourself:\n${lines.join('\n')}` : 'No delegation applies in this context: do the step yourself.'}`,
    );
  }
  const send: string[] = [];
  if (contract) {
    send.push(
      `- ${contract.required ? 'Required' : 'Optional'}: one \`${contract.kind}\` artifact (contract ${contract.contractRef}); step.outputContract.example shows a valid one, its schema: ${contract.schema}.`,
    );
  }
  for (const a of assessments ?? []) {
    send.push(`- Assessment \`${a.id}\`: a \`wr.assessment\` artifact rating ${a.dimensions.map((d) => `${d.id} (${d.levels.join(' | ')})`).join(', ')}.`);
  }
  if (send.length > 0) parts.push(`## Output to send\nWith the call that completes this step, send \`output: {notesMarkdown?, artifacts: [...]}\`:\n${send.join('\n')}`);
  if (step.metricsFooter) parts.push(step.metricsFooter);
  return parts;
}
