/** The JSON Schemas of the output contracts and of the assessment artifact (spec/contracts/ in the package). */
export interface ContractSchemaSource {
  /** The schema for `wr.contracts.<name>` or `wr.assessment`; undefined for an unknown id. */
  schema(id: string): Record<string, unknown> | undefined;
  /** Every id served. */
  ids(): string[];
}
