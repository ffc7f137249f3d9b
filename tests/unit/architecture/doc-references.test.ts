import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * A comment that sends the reader to `docs/<name>.md` must name a document that exists: six comments once cited
 * docs/knowledge.md and one docs/graphs.md, neither of which was ever written. Comments are found by the TypeScript
 * parser (a `//` inside a string or a template is not a comment; a path in a string is data, e.g. a workflow's
 * contract naming the user's own design doc, and is not checked).
 */
const REPO = path.resolve(__dirname, '../../..');
const DOC_REF = /\bdocs\/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b/g;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name)) out.push(rel);
  }
  return out;
}

/** Every comment of a TypeScript source, each once (leading and trailing trivia of every token, JSX included). */
function commentsOf(fileName: string, text: string): string[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) if (!seen.has(r.pos)) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.pos));
    take(ts.getTrailingCommentRanges(text, node.end));
    // getChildren includes the tokens, so a comment before a `}` or at the end of a JSX expression is reached too.
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return [...seen.values()];
}

/** `docs/….md` paths named in comments of these sources, with where each was named. */
function docReferences(files: Array<{ file: string; text: string }>): Array<{ file: string; doc: string }> {
  const out: Array<{ file: string; doc: string }> = [];
  for (const { file, text } of files) {
    for (const c of commentsOf(file, text)) for (const m of c.matchAll(DOC_REF)) out.push({ file, doc: m[0] });
  }
  return out;
}

describe('docs named in source comments', () => {
  it('finds references in line, block, doc and JSX comments, not in strings or templates', () => {
    const text = [
      '// see docs/a.md',
      '/** docs/b.md, "Section" */',
      'const s = "docs/not-a-comment.md // docs/nor-this.md";',
      'const t = `docs/template.md ${s /* docs/c.md */} // docs/template-tail.md`;',
      'export const el = <div>{/* docs/d.md */}</div>;',
      'const x = 1; // trailing docs/sub/e.md.',
    ].join('\n');
    expect(docReferences([{ file: 'x.tsx', text }]).map((r) => r.doc).sort()).toEqual(['docs/a.md', 'docs/b.md', 'docs/c.md', 'docs/d.md', 'docs/sub/e.md']);
  });

  it('every docs/<name>.md a comment under src/ names exists', () => {
    const files = sources('src').map((file) => ({ file, text: fs.readFileSync(path.join(REPO, file), 'utf8') }));
    const refs = docReferences(files);
    // The scan sees the comments that name documents (a parse that found none would pass vacuously).
    expect(refs.length).toBeGreaterThan(50);
    const missing = refs.filter((r) => !fs.existsSync(path.join(REPO, r.doc))).map((r) => `${r.file}: ${r.doc}`);
    expect(missing).toEqual([]);
  });
});
