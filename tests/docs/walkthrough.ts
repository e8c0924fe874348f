// The walk-through (docs/walkthrough.md) as a test reads it: the shell blocks marked to run, in order, each
// with the answers it documents, and the rule by which a documented answer matches a printed one.

/** The HTML comment (invisible on GitHub) on the line before a ```sh block that the walk-through runs. */
const WALKTHROUGH_MARKER = '<!-- walkthrough -->';

interface WalkthroughBlock {
  /** The heading the block is under, to name it in the test. */
  heading: string;
  /** Its first line's number in the page (1-based), for failure messages. */
  line: number;
  script: string;
  /** The answers documented in its `# {...}` comments, in order, as written (comment marks removed). */
  answers: string[];
}

/** The marked blocks of a Markdown text, in order. */
export function walkthroughBlocks(markdown: string): WalkthroughBlock[] {
  const lines = markdown.split('\n');
  const blocks: WalkthroughBlock[] = [];
  let heading = '';
  let inFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.startsWith('```')) inFence = !inFence;
    else if (!inFence && /^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    if (inFence || line.trim() !== WALKTHROUGH_MARKER) continue;
    if (lines[index + 1]?.trim() !== '```sh')
      throw new Error(`walk-through line ${index + 1}: ${WALKTHROUGH_MARKER} must be followed by a \`\`\`sh block`);
    const end = lines.findIndex((candidate, at) => at > index + 1 && candidate.startsWith('```'));
    if (end < 0) throw new Error(`walk-through line ${index + 2}: the block is never closed`);
    const script = lines.slice(index + 2, end).join('\n');
    blocks.push({ heading, line: index + 3, script, answers: documentedAnswers(script) });
    index = end;
  }
  return blocks;
}

/**
 * The answers a block documents: a comment whose text begins with `{` opens one, and the comment
 * lines after it continue it until its braces close; words after that are commentary.
 */
export function documentedAnswers(script: string): string[] {
  const answers: string[] = [];
  const lines = script.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const opening = lines[index]!.match(/^\s*#\s*(\{.*)$/);
    if (!opening) continue;
    let text = opening[1]!;
    while (closingAt(text) < 0 && /^\s*#/.test(lines[index + 1] ?? '')) {
      index++;
      text += ` ${lines[index]!.replace(/^\s*#\s*/, '')}`;
    }
    const end = closingAt(text);
    if (end < 0) throw new Error(`an answer whose braces never close: ${text}`);
    answers.push(text.slice(0, end + 1));
  }
  return answers;
}

/** Where the object that opens the text closes (outside strings), or -1. */
function closingAt(text: string): number {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return at;
    }
  }
  return -1;
}

// Placeholders in a documented answer, once parsed. Outside a string, `<anything>` is any value
// and `...` in an array means more elements may follow (in an object it is dropped: an object
// matches when the fields it shows match). Inside a string, `...` is any text, `<32 hex>` 32
// lowercase hex digits, and any other `<...>` some text.
const ANY = '\u0000any';
const MORE = '\u0000more';

/** A documented answer as a value to compare with; throws when it is not JSON once placeholders are read. */
export function parseDocumented(answer: string): unknown {
  let json = '';
  let inString = false;
  for (let at = 0; at < answer.length; at++) {
    const char = answer[at]!;
    if (inString) {
      if (char === '\\') {
        json += char + answer[++at];
        continue;
      }
      if (char === '"') inString = false;
      json += char;
    } else if (char === '"') {
      inString = true;
      json += char;
    } else if (char === '<') {
      const close = answer.indexOf('>', at);
      if (close < 0) throw new Error(`an unclosed <placeholder> in ${answer}`);
      json += JSON.stringify(ANY);
      at = close;
    } else if (answer.startsWith('...', at)) {
      json += JSON.stringify(MORE);
      at += 2;
    } else {
      json += char;
    }
  }
  const more = JSON.stringify(MORE).replaceAll('\\', '\\\\');
  json = json.replace(new RegExp(`(?:,\\s*)?${more}(?=\\s*\\})`, 'g'), '');
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new Error(`a documented answer that is not JSON (${(error as Error).message}): ${answer}`);
  }
}

/** A documented string with placeholders as a pattern; undefined when it has none. */
function stringPattern(documented: string): RegExp | undefined {
  if (!documented.includes('...') && !/<[^>]+>/.test(documented)) return undefined;
  const pattern = documented
    .split(/(\.\.\.|<[^>]+>)/)
    .map((part) => {
      if (part === '...') return '.*';
      if (part === '<32 hex>') return '[0-9a-f]{32}';
      if (/^<[^>]+>$/.test(part)) return '.+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${pattern}$`, 's');
}

/** How a printed value differs from a documented one: a line per difference, empty when it matches. */
export function differences(documented: unknown, printed: unknown, path = '$'): string[] {
  if (documented === ANY) return printed === undefined ? [`${path}: missing`] : [];
  if (typeof documented === 'string') {
    const pattern = stringPattern(documented);
    const matches = pattern ? typeof printed === 'string' && pattern.test(printed) : printed === documented;
    return matches ? [] : [`${path}: ${JSON.stringify(printed)} is not ${JSON.stringify(documented)}`];
  }
  if (Array.isArray(documented)) {
    if (!Array.isArray(printed)) return [`${path}: ${JSON.stringify(printed)} is not an array`];
    const open = documented.at(-1) === MORE;
    const shown = open ? documented.slice(0, -1) : documented;
    if (open ? printed.length < shown.length : printed.length !== shown.length) {
      return [`${path}: ${printed.length} elements, documented ${shown.length}${open ? ' or more' : ''}`];
    }
    return shown.flatMap((element, index) => differences(element, printed[index], `${path}[${index}]`));
  }
  if (documented !== null && typeof documented === 'object') {
    if (printed === null || typeof printed !== 'object' || Array.isArray(printed)) {
      return [`${path}: ${JSON.stringify(printed)} is not an object`];
    }
    return Object.entries(documented).flatMap(([key, value]) =>
      differences(value, (printed as Record<string, unknown>)[key], `${path}.${key}`),
    );
  }
  return printed === documented ? [] : [`${path}: ${JSON.stringify(printed)} is not ${JSON.stringify(documented)}`];
}
