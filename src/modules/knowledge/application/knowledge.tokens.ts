/** The knowledge module's injection tokens (registered by knowledge.module.ts; use cases inject them). */
export const KnowledgeTokens = {
  KnowledgeStore: Symbol.for('workgraph.KnowledgeStore'),
  KnowledgeIdGenerator: Symbol.for('workgraph.KnowledgeIdGenerator'),
  AddKnowledgeNodes: Symbol.for('workgraph.AddKnowledgeNodes'),
  ListKnowledgeNodes: Symbol.for('workgraph.ListKnowledgeNodes'),
  GetKnowledgeNode: Symbol.for('workgraph.GetKnowledgeNode'),
  SearchKnowledgeNodes: Symbol.for('workgraph.SearchKnowledgeNodes'),
  GetKnowledgeOverview: Symbol.for('workgraph.GetKnowledgeOverview'),
  DeleteKnowledgeNodes: Symbol.for('workgraph.DeleteKnowledgeNodes'),
  RestoreKnowledgeNodes: Symbol.for('workgraph.RestoreKnowledgeNodes'),
  ListDeletedKnowledgeNodes: Symbol.for('workgraph.ListDeletedKnowledgeNodes'),
  ListKnowledgeProjects: Symbol.for('workgraph.ListKnowledgeProjects'),
  ListKnowledgeBackups: Symbol.for('workgraph.ListKnowledgeBackups'),
  RestoreKnowledgeBackup: Symbol.for('workgraph.RestoreKnowledgeBackup'),
} as const;
