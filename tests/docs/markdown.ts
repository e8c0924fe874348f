import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

// What the docs tests read of a Markdown text: its tables, its headings as GitHub anchors them,
// and its links. Fenced code blocks are skipped: what they hold is code, not Markdown.

/** The lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let inFence = false;
  markdown.split('\n').forEach((text, index) => {
    if (text.trimStart().startsWith('```')) inFence = !inFence;
    else if (!inFence) lines.push({ text, line: index + 1 });
  });
  return lines;
}

const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/** The body rows (cells trimmed) of the first table whose header cells are `header`. */
export function markdownTable(markdown: string, header: string[]): string[][] {
  const lines = proseLines(markdown).map(({ text }) => text);
  const start = lines.findIndex((text) => text.trim().startsWith('|') && cellsOf(text).join('|') === header.join('|'));
  if (start < 0) throw new Error(`no table headed | ${header.join(' | ')} |`);
  const rows: string[][] = [];
  for (const text of lines.slice(start + 2)) {
    if (!text.trim().startsWith('|')) break;
    rows.push(cellsOf(text));
  }
  return rows;
}

/**
 * The anchor GitHub gives a heading: its text (code and link text kept, marks dropped) lower-cased,
 * punctuation removed but for - and _, each space a -.
 */
export function githubSlug(heading: string): string {
  return heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading, a repeated one numbered as GitHub numbers it (-1, -2, ...). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = text.match(/^#{1,6}\s+(.*)$/);
    if (!heading) continue;
    const slug = githubSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** Every inline link's target outside code (spans and blocks), with its line. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { text, line } of proseLines(markdown)) {
    // A code span's text is code, but it may be a link's text: keep a word in its place.
    const prose = text.replace(/`[^`]*`/g, 'code');
    for (const match of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) links.push({ target: match[1]!, line });
  }
  return links;
}

/** The pages the docs tests read: README.md and every docs/*.md, by their paths from the repository's root. */
export function docPages(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(resolve(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}
