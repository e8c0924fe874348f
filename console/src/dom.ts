// The page's one way to make elements. Every value becomes a text node or an attribute, never
// markup: a name such as `<img src=x onerror=...>` is shown as those characters and nothing runs.
// There is no innerHTML anywhere in console/src (tests/console/console-sources.test.ts checks).

type Child = Node | string | number | null | undefined | false | Child[];
type Listener = (event: Event) => void;
export type Props = Record<string, string | number | boolean | Listener | null | undefined>;

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const each of child) append(parent, each);
    return;
  }
  parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
}

/** An element with attributes (`on…` functions: listeners; true: present, false: absent) and children as text or nodes. */
export function h<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[Tag] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/** Replaces an element's children. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let lastId = 0;
/** An id no other element of the page has: a label's `for`, a hint's `aria-describedby`. */
export const uniqueId = (prefix: string) => `${prefix}-${++lastId}`;

export interface FieldOptions extends Props {
  hint?: string;
}

/** A labelled input: the label is visible and names the control; a hint, if any, describes it. */
export function field(label: string, options: FieldOptions = {}): { row: HTMLDivElement; input: HTMLInputElement } {
  const { hint, ...attributes } = options;
  const id = uniqueId('field');
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h('input', { id, name: id, type: 'text', 'aria-describedby': hintId, ...attributes });
  const row = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
  );
  return { row, input };
}

/** A labelled select of values and their shown names. */
export function selectField(label: string, options: [value: string, text: string][], selected?: string) {
  const id = uniqueId('select');
  const select = h(
    'select',
    { id, name: id },
    ...options.map(([value, text]) => h('option', { value, selected: value === selected }, text)),
  );
  return { row: h('div', { class: 'field' }, h('label', { for: id }, label), select), select };
}

/** A labelled checkbox, its label after it. */
export function checkbox(label: string, hint?: string) {
  const id = uniqueId('check');
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h('input', { id, name: id, type: 'checkbox', 'aria-describedby': hintId });
  const row = h(
    'div',
    { class: 'field check' },
    input,
    h('label', { for: id }, label),
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
  );
  return { row, input };
}

/** A region that screen readers announce when its text changes: progress and outcomes (status) or refusals (alert). */
export function announcer(kind: 'status' | 'alert') {
  const region = h('div', { class: `message ${kind}`, role: kind, 'aria-live': kind === 'alert' ? 'assertive' : 'polite' });
  return {
    region,
    say(...text: Child[]) {
      show(region, ...text);
    },
    clear() {
      region.replaceChildren();
    },
  };
}

/** A definition list of label and value pairs, each value as text. */
export function facts(pairs: [string, Child][]): HTMLDListElement {
  return h('dl', { class: 'facts' }, ...pairs.flatMap(([term, value]) => [h('dt', null, term), h('dd', null, value ?? '—')]));
}

/** A table with a caption, head cells and rows of text or nodes. */
export function table(caption: string, head: string[], rows: Child[][]): HTMLTableElement {
  return h(
    'table',
    null,
    h('caption', null, caption),
    h('thead', null, h('tr', null, ...head.map((cell) => h('th', { scope: 'col' }, cell)))),
    h('tbody', null, ...rows.map((row) => h('tr', null, ...row.map((cell) => h('td', null, cell))))),
  );
}

/** Runs the form's work on submit, with its submit buttons disabled meanwhile. */
export function onSubmit(form: HTMLFormElement, work: () => Promise<void>): void {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const buttons = [...form.querySelectorAll('button')];
    for (const button of buttons) button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      await work();
    } finally {
      for (const button of buttons) button.disabled = false;
      form.removeAttribute('aria-busy');
    }
  });
}
