import { AT_END_OF_FILE, clampToContent } from './text-position';
import { parseTree, getNodeValue, printParseErrorCode, type Node, type ParseError, type ParseErrorCode } from 'jsonc-parser';

/**
 * Strict JSON parsing that keeps positions (jsonc-parser), so problems in workflow files can be reported as
 * `line:column` and JSON pointers can be mapped back to where their value sits in the text.
 */

/** 1-based line and column. */
export interface TextPosition {
  line: number;
  column: number;
}

export interface JsonSyntaxIssue extends TextPosition {
  offset: number;
  message: string;
}

export type StrictJsonResult =
  | { ok: true; value: unknown; text: JsonText }
  | { ok: false; issues: JsonSyntaxIssue[] };

/** Parsed text with its syntax tree and line index, for locating pointers. */
export class JsonText {
  private lineStarts?: number[];

  constructor(readonly text: string, readonly tree: Node | undefined) {}

  /** 1-based line/column of a character offset. */
  positionAt(offset: number): TextPosition {
    return positionIn(this.lineIndex(), offset);
  }

  /**
   * Where the value a JSON pointer (`/steps/0/prompt`) names starts. When the pointer goes deeper than the text (a
   * missing property), the position of the deepest existing value on the way.
   */
  positionOfPointer(pointer: string): TextPosition {
    return this.positionAt(this.nodeOfPointer(pointer)?.offset ?? 0);
  }

  /** The position of a property's key inside the object a pointer names, when present (for "unknown property"). */
  positionOfKey(pointer: string, key: string): TextPosition | undefined {
    const node = this.nodeOfPointer(pointer);
    const prop = node?.type === 'object' ? node.children?.find((p) => p.children?.[0]?.value === key) : undefined;
    return prop ? this.positionAt(prop.offset) : undefined;
  }

  private nodeOfPointer(pointer: string): Node | undefined {
    let node = this.tree;
    for (const segment of pointerSegments(pointer)) {
      if (!node) break;
      let next: Node | undefined;
      if (node.type === 'object') {
        next = node.children?.find((p) => p.children?.[0]?.value === segment)?.children?.[1];
      } else if (node.type === 'array' && /^(0|[1-9][0-9]*)$/.test(segment)) {
        next = node.children?.[Number(segment)];
      }
      if (!next) break;
      node = next;
    }
    return node;
  }

  private lineIndex(): number[] {
    if (!this.lineStarts) this.lineStarts = lineStartsOf(this.text);
    return this.lineStarts;
  }
}

/**
 * Parses `text` as strict JSON (RFC 8259: no comments, no trailing commas; a leading BOM is ignored).
 * Never throws: syntax problems come back as issues with positions (at most `maxIssues`, default 20).
 */
export function parseStrictJson(input: string, maxIssues = 20): StrictJsonResult {
  const text = input.charCodeAt(0) === 0xfeff ? ' ' + input.slice(1) : input;
  const errors: ParseError[] = [];
  let tree: Node | undefined;
  try {
    tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch (e) {
    // The parser recurses per nesting level: absurdly deep input overflows the stack.
    return { ok: false, issues: [{ line: 1, column: 1, offset: 0, message: `JSON could not be parsed: ${(e as Error).message}` }] };
  }
  if (errors.length > 0) {
    const lines = lineStartsOf(text);
    if (text.trim() === '') return { ok: false, issues: [{ line: 1, column: 1, offset: 0, message: 'the file is empty: expected a JSON value' }] };
    return {
      ok: false,
      issues: errors.slice(0, maxIssues).map((err) => {
        // An error noticed only when the text ran out is placed after its last character, not past the last line.
        const { offset, atEnd } = clampToContent(text, err.offset);
        return { ...positionIn(lines, offset), offset, message: `${syntaxMessage(err.error)}${atEnd ? AT_END_OF_FILE : ''}` };
      }),
    };
  }
  return { ok: true, value: getNodeValue(tree as Node), text: new JsonText(text, tree) };
}

/** RFC 6901 pointer segments (`~1` → `/`, `~0` → `~`). `""` is the whole document. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return pointer === '/' ? [''] : [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

function positionIn(lineStarts: number[], offset: number): TextPosition {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - lineStarts[lo] + 1 };
}

/** Messages a person can act on (trailing commas and comments are the usual culprits in hand-edited files). */
function syntaxMessage(code: ParseErrorCode): string {
  // ParseErrorCode is an ambient const enum (unusable with isolatedModules): switch on its printed name.
  switch (printParseErrorCode(code)) {
    case 'InvalidSymbol':
      return 'invalid character (JSON allows only objects, arrays, strings in double quotes, numbers, true, false, null)';
    case 'InvalidNumberFormat':
      return 'invalid number';
    case 'PropertyNameExpected':
      return 'expected a property name in double quotes (trailing commas are not allowed in JSON)';
    case 'ValueExpected':
      return 'expected a value (trailing commas are not allowed in JSON)';
    case 'ColonExpected':
      return "expected ':' after the property name";
    case 'CommaExpected':
      return "expected ',' between items";
    case 'CloseBraceExpected':
      return "expected '}' to close the object";
    case 'CloseBracketExpected':
      return "expected ']' to close the array";
    case 'EndOfFileExpected':
      return 'unexpected content after the end of the JSON value';
    case 'InvalidCommentToken':
      return 'comments are not allowed in JSON';
    case 'UnexpectedEndOfComment':
      return 'unterminated comment (comments are not allowed in JSON)';
    case 'UnexpectedEndOfString':
      return 'unterminated string';
    case 'UnexpectedEndOfNumber':
      return 'unexpected end of number';
    case 'InvalidUnicode':
      return 'invalid unicode escape';
    case 'InvalidEscapeCharacter':
      return 'invalid escape character in string';
    case 'InvalidCharacter':
      return 'invalid character in string (control characters must be escaped)';
    default:
      return 'invalid JSON';
  }
}
