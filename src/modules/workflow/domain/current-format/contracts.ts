/**
 * The output contracts current-format steps name (`outputContract.contractRef`). Each has a JSON Schema in
 * spec/contracts/<name>.schema.json (served by workflow_get_schema {contract}) and an example artifact that satisfies
 * it, which the step answer carries so an agent knows exactly what to send.
 */

export interface ContractInfo {
  /** `wr.contracts.<name>`. */
  id: string;
  /** The `kind` its artifacts carry. */
  kind: string;
  /** The schema file's name under spec/contracts/. */
  schemaFile: string;
  example: Record<string, unknown>;
}

const contract = (name: string, kind: string, example: Record<string, unknown>): ContractInfo => ({
  id: `wr.contracts.${name}`,
  kind,
  schemaFile: `${name}.schema.json`,
  example: { kind, ...example },
});

export const LOOP_CONTROL = 'wr.contracts.loop_control';
export const ASSESSMENT_KIND = 'wr.assessment';

export const CONTRACTS: Readonly<Record<string, ContractInfo>> = Object.fromEntries(
  [
    contract('loop_control', 'wr.loop_control', { decision: 'stop', metadata: { reason: 'The last pass found nothing left to fix.' } }),
    contract('coding_handoff', 'wr.coding_handoff', {
      version: 1,
      keyDecisions: ['Validate input at the API boundary'],
      knownLimitations: ['No retry on network errors yet'],
      testsAdded: ['tests/api/items.test.ts'],
      filesChanged: ['src/api/items.ts'],
    }),
    contract('review_verdict', 'wr.review_verdict', {
      verdict: 'minor',
      confidence: 'high',
      findings: [{ severity: 'minor', summary: 'A log line prints the whole request body.' }],
      summary: 'Sound change; one minor finding.',
    }),
    contract('gate_verdict', 'wr.gate_verdict', {
      version: 1,
      verdict: 'approved',
      confidence: 'medium',
      rationale: 'Every criterion of the gate is met by the evidence recorded in the notes.',
    }),
    contract('discovery_handoff', 'wr.discovery_handoff', {
      version: 1,
      selectedDirection: 'Cache the catalog in memory and refresh it on change',
      designDocPath: 'docs/design/catalog-cache.md',
      confidenceBand: 'medium',
      keyInvariants: ['A stale catalog is never served after a change is seen'],
      rejectedDirections: [{ direction: 'Reload on every call', reason: 'Too slow on large folders' }],
    }),
    contract('shaping_handoff', 'wr.shaping_handoff', {
      version: 1,
      pitchPath: 'docs/pitches/catalog-cache.md',
      selectedShape: 'In-memory catalog with change detection',
      appetite: 'two weeks',
      keyConstraints: ['No new dependencies'],
      rabbitHoles: ['Network file systems without change events'],
      outOfScope: ['A distributed cache'],
      validationChecklist: ['A change is seen within one second'],
    }),
    contract('differentiation_handoff', 'wr.differentiation_handoff', {
      version: 1,
      generatedAt: '2026-01-01T00:00:00Z',
      validationChecklist: ['Three customers confirm the friction'],
      shapingHandoff: {
        rawIdea: 'Let teams share workflows',
        problem: 'Each team rewrites the same review workflow',
        baseline: 'Copying files between repositories',
        appetiteHint: 'small_batch',
        noGosHints: ['A marketplace'],
      },
    }),
    contract('task_plan', 'wr.task_plan', {
      version: 1,
      projectName: 'Catalog cache',
      mode: 'init',
      source: 'docs/design/catalog-cache.md',
      nodes: [
        { id: 'cache', title: 'Cache the catalog in memory', validation_command: 'npm test -- catalog-cache', priority: 'high' },
        { id: 'watch', title: 'Drop the cache when a file changes', depends_on: ['cache'], validation_command: 'npm test -- catalog-watch' },
        { id: 'docs', title: 'Document the cache', depends_on: ['cache'] },
      ],
      uncheckedTasks: [{ id: 'docs', reason: 'Prose is reviewed by a person.' }],
    }),
  ].map((c) => [c.id, c]),
);

/** The assessment artifact's schema file under spec/contracts/. */
export const ASSESSMENT_SCHEMA_FILE = 'assessment.schema.json';

/** Every schema file under spec/contracts/ by the name workflow_get_schema accepts (`wr.contracts.<name>`, `wr.assessment`). */
export function contractSchemaFiles(): Record<string, string> {
  const out: Record<string, string> = { [ASSESSMENT_KIND]: ASSESSMENT_SCHEMA_FILE };
  for (const c of Object.values(CONTRACTS)) out[c.id] = c.schemaFile;
  return out;
}
