// What the docs cite of the tests (tests/docs/cited-tests.test.ts): a `tests/....test.ts` path,
// then the titles named right after it ("one", "two ..."), and whether a test file has such a title.

/** A test the docs name: the file, the quoted title (or a part of it, with ...), and where. */
export interface Citation {
  file: string;
  name: string;
  at: string;
}

const CITED_FILE = /`((?:client\/)?tests\/[\w./-]+\.test\.ts)`/g;
/** A quoted title right after the file or the one before it: commas, "and", "or" and (notes) between. */
const NEXT_NAME = /^(?:\s|[,;:]|\band\b|\bor\b|\([^()"]*\))*"((?:[^"\\]|\\.)*)"/;

/** The table cells and paragraphs of a page, each with its first line; fenced code left out. */
function blocksOf(markdown: string): { text: string; line: number }[] {
  const blocks: { text: string; line: number }[] = [];
  let inFence = false;
  let paragraph: { text: string; line: number } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fence = text.trimStart().startsWith('```');
    if (fence) inFence = !inFence;
    if (fence || inFence || !text.trim()) {
      paragraph = undefined;
    } else if (text.trim().startsWith('|')) {
      for (const cell of text.split('|')) blocks.push({ text: cell, line: index + 1 });
      paragraph = undefined;
    } else if (paragraph) {
      paragraph.text += ` ${text}`;
    } else {
      paragraph = { text, line: index + 1 };
      blocks.push(paragraph);
    }
  });
  return blocks;
}

/** The tests a page cites: each cited file with the titles named right after it. */
export function citationsOf(page: string, markdown: string): Citation[] {
  return blocksOf(markdown).flatMap(({ text, line }) =>
    [...text.matchAll(CITED_FILE)].flatMap((match) => {
      const names: Citation[] = [];
      let after = text.slice(match.index + match[0].length);
      for (let name = after.match(NEXT_NAME); name; name = after.match(NEXT_NAME)) {
        names.push({ file: match[1]!, name: name[1]!.replace(/\\"/g, '"').replace(/\s+/g, ' '), at: `${page}:${line}` });
        after = after.slice(name[0].length);
      }
      return names;
    }),
  );
}

/** The titles of a test file's its, tests and describes, as written (template holes and all). */
export function testTitles(source: string): string[] {
  const call =
    /\b(?:it|test|describe)(?:\.each(?:<[^>]*>)?\([\s\S]*?\))?\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`)/g;
  return [...source.matchAll(call)].map((match) => (match[1] ?? match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1'));
}

/** A pattern as characters and stretches of any text (null). */
type Pattern = (string | null)[];

const pattern = (text: string, wild: RegExp): Pattern => text.split(wild).flatMap((part, index) => [...(index ? [null] : []), ...part]);

/**
 * Whether a title has the cited name: some text both could be. In the title, a ${...} or %s hole
 * stands for any text; in the name, "..." (at its start, end or inside) stands for what was left out.
 */
export function titleHas(title: string, cited: string): boolean {
  const a = pattern(title, /\$\{[^}]*\}|%[sdijo]/);
  const b = pattern(cited.trim(), /\s*(?:\.\.\.|…)\s*/);
  const seen = new Map<number, boolean>();
  const meet = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = seen.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === null) result = meet(i + 1, j) || (j < b.length && meet(i, j + 1));
    else if (b[j] === null) result = meet(i, j + 1) || (i < a.length && meet(i + 1, j));
    else result = i < a.length && j < b.length && a[i] === b[j] && meet(i + 1, j + 1);
    seen.set(key, result);
    return result;
  };
  return meet(0, 0);
}
