import { LineCounter, parseDocument, type Document } from 'yaml';
import { AT_END_OF_FILE, clampToContent, lineAndColumn } from './text-position';

export interface YamlSyntaxIssue {
  line: number;
  column: number;
  message: string;
}

/**
 * Parses YAML (duplicate keys are errors) and words its syntax errors with 1-based positions inside the content: an
 * error the parser notices only at the end of the text (an unclosed quote or bracket) is placed after the last
 * character and says so, not on a line past the end of the file.
 */
export function parseYamlText(text: string): { doc: Document; lineCounter: LineCounter; issues: YamlSyntaxIssue[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const issues = doc.errors.map((e) => {
    const { offset, atEnd } = clampToContent(text, e.pos[0]);
    return { ...lineAndColumn(text, offset), message: `YAML: ${e.message.split('\n')[0]}${atEnd ? AT_END_OF_FILE : ''}` };
  });
  return { doc, lineCounter, issues };
}
