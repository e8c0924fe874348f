import type { OperationData, OperationInput } from '../../client/src/index.js';
import { confirmAction } from './confirm.js';
import { announcer, checkbox, field, h, onSubmit, show, uniqueId } from './dom.js';
import { when } from './format.js';
import { failureText } from './messages.js';
import { reasonField } from './reason-field.js';
import { codeMessage, type Size, sizeText, smsSize, warningMessage } from './sms-size.js';
import type { Staff } from './staff.js';

// The company's settings (API contract 3.14, 6 and 7; admin): what `npm run company:update` sets,
// through company/view and company/update and their rules. Each text shows, as it is typed, how
// many SMS its message takes (with a 6-digit code, the name, the minutes and the autofill lines);
// one that needs more than the rules allow is refused here, with its count, before anything is sent.

type Settings = OperationData<'adminCompanyView'>;
type Company = Settings['company'];
type Update = Omit<OperationInput<'adminCompanyUpdate'>, 'reason'>;
type LimitName = keyof Company['limits'];

const LIMITS: [LimitName, string][] = [
  ['sms_per_hour', 'SMS per hour'],
  ['sms_per_prefix_per_hour', 'SMS per number prefix per hour'],
  ['sends_per_address_per_hour', 'Code sends per IP address per hour'],
  ['verifies_per_address', 'Code checks per IP address'],
];

/** One text of a language: a code text or a phone-change warning, its textarea and its live size. */
interface TextRow {
  language: string;
  input: HTMLTextAreaElement;
  size: HTMLParagraphElement;
  row: HTMLElement;
}

export function companySettingsSection(staff: Staff): HTMLElement {
  const body = h('div');
  const errors = announcer('alert');
  const reason = reasonField(staff, 'Why you look: every view and change of the settings is recorded with it.');
  const load = h('form', { 'aria-label': 'Show the settings' }, reason.row, h('button', { type: 'submit' }, 'Show settings'));
  onSubmit(load, async () => {
    errors.clear();
    const why = reason.given(errors);
    if (!why) return;
    staff.reason = why;
    try {
      showSettings(body, staff, await staff.client.admin.viewCompany({ reason: staff.reason }));
    } catch (error) {
      errors.say(failureText(error));
    }
  });
  show(body, load, errors.region);
  setTimeout(() => reason.input.focus());
  return h(
    'section',
    { 'aria-labelledby': 'settings-title' },
    h('h2', { id: 'settings-title', tabindex: '-1' }, 'Company settings'),
    h('p', null, 'Where codes may be texted, the texts themselves, and the send limits: what an operator’s company:update sets.'),
    body,
  );
}

function textArea(label: string, value: string, hint: string) {
  const id = uniqueId('text');
  const input = h('textarea', { id, name: id, rows: 3, 'aria-describedby': `${id}-size ${id}-hint`, spellcheck: 'true' }, value);
  const size = h('p', { class: 'segments', id: `${id}-size`, 'aria-live': 'polite' });
  const row = h('div', { class: 'field' }, h('label', { for: id }, label), input, size, h('p', { class: 'hint', id: `${id}-hint` }, hint));
  return { input, size, row };
}

function showSettings(root: HTMLElement, staff: Staff, { company, rules }: Settings, outcome?: string): void {
  const errors = announcer('alert');
  const name = field('Company name', {
    required: true,
    maxlength: rules.name_max_length,
    value: company.name,
    hint: 'The {brand} of every text.',
  });
  const verified = checkbox(
    'Customers prove their phone to register',
    'require_verified_phone: a customer registering themselves must first verify a code sent to the phone.',
  );
  verified.input.checked = company.require_verified_phone === 1;
  const countries = field('SMS countries', {
    value: company.sms_countries === 'all' ? 'all' : company.sms_countries.join(', '),
    hint: 'ISO 3166 alpha-2 codes, such as IN, US; or "all": every country, the favourite target of SMS pumping.',
  });
  const appHash = field('Android app hash', {
    value: company.sms_text.app_hash ?? '',
    maxlength: rules.app_hash_length,
    hint: `${rules.app_hash_length} characters (SMS Retriever), the last line but the WebOTP one. Empty: none.`,
  });
  const webotp = field('WebOTP domain', {
    value: company.sms_text.webotp_domain ?? '',
    hint: 'Such as wallet.example.com: the last line reads @domain #code. Empty: none.',
  });
  const defaultLanguage = h('select', { id: uniqueId('select') });
  const builtIn = h('p', { class: 'segments', 'aria-live': 'polite' });

  const codeRows: TextRow[] = [];
  const warningRows: TextRow[] = [];
  const codeList = h('div');
  const warningList = h('div');
  const placeholders = rules.template_placeholders.join(', ');

  const addCodeRow = (language: string, text: string) => {
    const area = textArea(
      `Code text (${language})`,
      text,
      `Placeholders: ${placeholders}; {code} is required. Empty: removes this language's text.`,
    );
    codeRows.push({ language, ...area });
    codeList.append(area.row);
  };
  const addWarningRow = (language: string, text: string) => {
    const area = textArea(
      `Phone-change text (${language})`,
      text,
      `Sent to the old number when an account moves. Placeholders: ${rules.phone_change_placeholders.join(', ')}; never a code. Empty: removes it.`,
    );
    warningRows.push({ language, ...area });
    warningList.append(area.row);
  };
  for (const [language, text] of Object.entries(company.sms_text.templates)) addCodeRow(language, text);
  for (const [language, text] of Object.entries(company.phone_change_texts)) addWarningRow(language, text);

  const languageOptions = () => {
    const chosen = defaultLanguage.value || company.sms_text.default_language || '';
    show(
      defaultLanguage,
      h('option', { value: '' }, 'none: the built-in English text'),
      ...codeRows.map((row) => h('option', { value: row.language, selected: row.language === chosen }, row.language)),
    );
  };

  /** The sizes of every text as typed, each shown beside it; answers those over the limit. */
  const recount = (): string[] => {
    const values = {
      code: '0'.repeat(rules.sized_with.code_digits),
      brand: name.input.value.trim(),
      minutes: rules.sized_with.minutes,
      appHash: appHash.input.value.trim() || undefined,
      webotpDomain: webotp.input.value.trim().toLowerCase() || undefined,
    };
    const over: string[] = [];
    const sized = (label: string, line: HTMLElement, size: Size) => {
      const tooMany = size.segments > rules.max_sms_segments;
      line.textContent = tooMany ? `${sizeText(size)}: over the limit of ${rules.max_sms_segments} SMS` : sizeText(size);
      line.classList.toggle('over', tooMany);
      if (tooMany)
        over.push(`${label} would need ${size.segments} SMS (${size.units} ${size.encoding} units); at most ${rules.max_sms_segments}.`);
    };
    for (const row of codeRows) {
      if (row.input.value.trim())
        sized(`The code text (${row.language})`, row.size, smsSize(codeMessage(row.input.value, values), rules.sms_segment_units));
      else row.size.textContent = 'Removed when saved.';
    }
    for (const row of warningRows) {
      if (row.input.value.trim())
        sized(
          `The phone-change text (${row.language})`,
          row.size,
          smsSize(warningMessage(row.input.value, values.brand), rules.sms_segment_units),
        );
      else row.size.textContent = 'Removed when saved.';
    }
    if (defaultLanguage.value) builtIn.textContent = '';
    else sized('The built-in English text', builtIn, smsSize(codeMessage(rules.built_in_template, values), rules.sms_segment_units));
    return over;
  };

  const newLanguage = field('New language', { hint: 'A BCP 47 tag, such as en, hi or es-MX.', autocomplete: 'off', size: 8 });
  const addLanguage = (kind: 'code' | 'warning') => () => {
    const language = newLanguage.input.value.trim();
    const rows = kind === 'code' ? codeRows : warningRows;
    if (!language || rows.some((row) => row.language.toLowerCase() === language.toLowerCase())) {
      errors.say(language ? `There is a ${language} text already.` : 'Type the new language first, such as hi.');
      newLanguage.input.focus();
      return;
    }
    errors.clear();
    if (kind === 'code') addCodeRow(language, rules.built_in_template);
    else addWarningRow(language, rules.built_in_phone_change_text);
    languageOptions();
    recount();
    rows.at(-1)?.input.focus();
    newLanguage.input.value = '';
  };

  const limitInputs = LIMITS.map(([limit, label]) => {
    const current = company.limits[limit];
    const input = field(label, {
      type: 'number',
      min: current.min,
      inputmode: 'numeric',
      value: current.source === 'company' ? current.value : '',
      placeholder: String(current.default),
      hint: `In force: ${current.value} (${current.source === 'company' ? 'the company’s' : 'the default'}). Default ${current.default}, least ${current.min}${current.min === 0 ? ' (0: no limit)' : ''}. Empty: the default.`,
    });
    return { limit, current, input };
  });

  /** What differs from the settings shown: the body of company/update (a removal is a null inside an object). */
  const changes = (): Update => {
    const update: Update = {};
    if (name.input.value.trim() !== company.name) update.name = name.input.value.trim();
    if ((verified.input.checked ? 1 : 0) !== company.require_verified_phone) update.require_verified_phone = verified.input.checked ? 1 : 0;
    const typed = countries.input.value.trim();
    const listed: 'all' | string[] = /^all$/i.test(typed)
      ? 'all'
      : typed
          .split(/[\s,;]+/)
          .filter(Boolean)
          .map((code) => code.toUpperCase());
    if (JSON.stringify(listed) !== JSON.stringify(company.sms_countries)) update.sms_countries = listed;
    const smsText: NonNullable<Update['sms_text']> = {};
    const templates: Record<string, string | null> = {};
    for (const row of codeRows) {
      const before = company.sms_text.templates[row.language];
      const now = row.input.value.trim() ? row.input.value : null;
      if (now !== (before ?? null)) templates[row.language] = now;
    }
    if (Object.keys(templates).length) smsText.templates = templates;
    const optional = (typedValue: string, before: string | null) => (typedValue.trim() || null) !== before;
    if (optional(defaultLanguage.value, company.sms_text.default_language)) smsText.default_language = defaultLanguage.value || null;
    if (optional(appHash.input.value, company.sms_text.app_hash)) smsText.app_hash = appHash.input.value.trim() || null;
    if (optional(webotp.input.value, company.sms_text.webotp_domain)) smsText.webotp_domain = webotp.input.value.trim() || null;
    if (Object.keys(smsText).length) update.sms_text = smsText;
    const warnings: Record<string, string | null> = {};
    for (const row of warningRows) {
      const before = company.phone_change_texts[row.language];
      const now = row.input.value.trim() ? row.input.value : null;
      if (now !== (before ?? null)) warnings[row.language] = now;
    }
    if (Object.keys(warnings).length) update.phone_change_texts = warnings;
    const limits: Record<string, number | null> = {};
    for (const { limit, current, input } of limitInputs) {
      const value = input.input.value.trim() === '' ? null : Number(input.input.value);
      if (value !== (current.source === 'company' ? current.value : null)) limits[limit] = value;
    }
    if (Object.keys(limits).length) update.limits = limits as Update['limits'];
    return update;
  };

  const form = h(
    'form',
    { 'aria-labelledby': 'settings-title', novalidate: true },
    outcome ? h('p', { class: 'message status', role: 'status' }, outcome) : null,
    company.warnings.length
      ? h(
          'div',
          { class: 'message alert', role: 'note' },
          h('p', null, 'Worth a look:'),
          h('ul', null, ...company.warnings.map((warning) => h('li', null, warning))),
        )
      : null,
    h(
      'fieldset',
      null,
      h('legend', null, 'The company'),
      h('p', { class: 'hint' }, `Company ID ${company.company_id}; last changed ${when(company.updated_at)}.`),
      name.row,
      verified.row,
      countries.row,
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Code texts'),
      h(
        'p',
        { class: 'hint' },
        `Sized as sent: a ${rules.sized_with.code_digits}-digit code, the company name, ${rules.sized_with.minutes} minutes and the autofill lines. At most ${rules.max_sms_segments} SMS: a message is never cut.`,
      ),
      codeList,
      h('div', { class: 'field' }, h('label', { for: defaultLanguage.id }, 'Default language'), defaultLanguage),
      h('p', { class: 'hint' }, 'Built-in English text, sent while there is no default language: '),
      builtIn,
      appHash.row,
      webotp.row,
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Phone-change warnings'),
      h('p', { class: 'hint' }, 'A language without one gets the built-in English warning.'),
      warningList,
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Add a language'),
      newLanguage.row,
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'button', class: 'secondary', onclick: addLanguage('code') }, 'Add code text'),
        h('button', { type: 'button', class: 'secondary', onclick: addLanguage('warning') }, 'Add phone-change text'),
      ),
    ),
    h('fieldset', null, h('legend', null, 'Send limits'), ...limitInputs.map(({ input }) => input.row)),
    errors.region,
    h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Save settings')),
  );
  form.addEventListener('input', () => recount());
  onSubmit(form, async () => {
    errors.clear();
    const over = recount();
    if (over.length) {
      errors.say(`Not saved. ${over.join(' ')} Shorten the text, or the company name.`);
      return;
    }
    const update = changes();
    const changed = Object.keys(update);
    if (!changed.length) {
      errors.say('Nothing to save: no setting differs from the stored ones.');
      return;
    }
    confirmAction(staff, {
      title: 'Save settings',
      effect: `Changes ${changed.join(', ')} for every user of the company, in force within ${rules.in_force_within_seconds} s.`,
      act: async (why) => {
        const saved = await staff.client.admin.updateCompany({ ...update, reason: why });
        if (saved.pending) {
          // A security setting (the texts, the countries) waits for a second admin: the settings shown are as they still are.
          showSettings(root, staff, saved, 'Asked: another admin approves this change under Approvals; until then nothing changed.');
          return 'Asked.';
        }
        showSettings(root, staff, saved, `Saved: in force within ${saved.in_force_within_seconds} s.`);
        return 'Saved.';
      },
      done: () => undefined,
    });
  });
  languageOptions();
  recount();
  show(root, form);
}
