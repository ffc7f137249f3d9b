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
