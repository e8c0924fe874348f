import { type SmsSize, smsSize } from '../sms/sms-segments.js';
import { canonicalLanguageTag, MAX_SMS_SEGMENTS, type SmsTextProblem, SmsTextRefused } from '../sms/sms-text.js';
import type { PendingChangeKind } from '../store/pending-change-store.js';

// The security warnings a company may write per language (API contract 3.11, 3.15 and 7): the SMS
// that tells the number of a change that waits (by its kind), of a device bound by an OTP login
// (new_device), and the old number that the account moved (phone). No code text, so rules of their
// own: no {code}, no digits that read as one, {brand} the only placeholder; sized as the code texts
// are, with the name in. The phone kind's texts stay where --phone-change-text first stored them.

/** Which warning a text is for: a held change's kind, or a device bound by an OTP login. */
export type WarningKey = PendingChangeKind | 'new_device';

/**
 * The built-in English warnings, for a company with no text in the caller's or its default language;
 * {brand} is the company's name. `phone`: a move that waits (a completed move has its own, below).
 */
export const BUILT_IN_WARNING_TEXTS: Record<WarningKey, string> = {
  phone:
    'A move of your {brand} account to another phone number was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.',
  login_pin:
    'A new login PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.',
  transaction_pin:
    'A new payment PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.',
  device_remove:
    'Removing a trusted device from your {brand} account was asked for. If this was not you, open the {brand} app on that device to cancel it.',
  delete:
    'Deleting your {brand} account was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.',
  profile:
    'A change of the name, email or birth date of your {brand} account was asked for. If this was not you, open the {brand} app to cancel it.',
  export: 'A copy of your {brand} account’s data was asked for. If this was not you, open the {brand} app to cancel it.',
  new_device:
    'A new device signed in to your {brand} account with a code. If this was not you, open the {brand} app on your phone and choose "Not me".',
};

/** Every warning a company may write a text for, in the order listed and printed. */
export const WARNING_KEYS = Object.keys(BUILT_IN_WARNING_TEXTS) as WarningKey[];

/** The built-in English warning to the old number once the account moved (the company's phone texts replace it too). */
export const BUILT_IN_PHONE_CHANGE_TEXT =
  'Your {brand} account was moved to another phone number. If you did not do this, contact {brand} at once.';

/** Four digits or more, a space, dot or hyphen allowed between them: read as a code ("123 456"). */
const CODE_LIKE_DIGITS = /\p{Nd}(?:[ .-]?\p{Nd}){3,}/u;

/** A change to a warning's texts; text null removes the language's. `warning` as given: an unknown one is refused. */
export interface WarningTextChange {
  warning: string;
  language: string;
  text: string | null;
}

/** Sizes by warning, then by language. */
export type WarningSizes = Partial<Record<WarningKey, Record<string, SmsSize>>>;

/** The warning texts as stored in sms_text: the phone kind's apart, as first stored. */
export interface StoredWarningTexts {
  phone_change_texts?: Record<string, string> | undefined;
  warning_texts?: Partial<Record<Exclude<WarningKey, 'phone'>, Record<string, string>>> | undefined;
}

export interface CheckedWarningTexts {
  /** What sms_text holds of them after the change; an attribute absent: none left. */
  stored: StoredWarningTexts;
  /** Each warning as sent with the company's name. */
  sizes: WarningSizes;
}

/** What a refusal or a size line calls a warning's text in a language. */
export function warningTextName(warning: string, language: string): string {
  return warning === 'phone' ? `phone-change text ${language}` : `${warning} warning text ${language}`;
}

/** The company's texts of a warning by language (undefined: none). */
export function warningTextsOf(settings: StoredWarningTexts | undefined, warning: WarningKey): Record<string, string> | undefined {
  const texts = warning === 'phone' ? settings?.phone_change_texts : settings?.warning_texts?.[warning];
  return texts && Object.keys(texts).length ? texts : undefined;
}

/** The warning as sent: {brand} is the company's name. */
export function warningMessage(text: string, brand: string): string {
  // A function, not a string: a name holding "$&" stays as it is.
  return text.replaceAll('{brand}', () => brand);
}

/** What is wrong with a warning text as written (none: []). */
export function warningTextProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.trim()) problems.push('blank: the warning would tell nothing');
  for (const [, name] of text.matchAll(/\{([^{}]*)\}/g)) {
    if (name === 'code') problems.push('{code}: the warning carries no code');
    else if (name !== 'brand') problems.push(`unknown placeholder {${name}} (known: {brand}, the company's name)`);
  }
  if (/[{}]/.test(text.replace(/\{[^{}]*\}/g, ''))) problems.push('a { or } outside a placeholder');
  const digits = CODE_LIKE_DIGITS.exec(text);
  if (digits) problems.push(`${JSON.stringify(digits[0])}: 4 or more digits in a run read as a code; the warning carries none`);
  return problems;
}

const isWarningKey = (warning: string): warning is WarningKey => Object.hasOwn(BUILT_IN_WARNING_TEXTS, warning);

/**
 * Applies changes to a company's warning texts and sizes every one with the company's name:
 * SmsTextRefused, with every problem one a line, when one breaks a rule or needs more than
 * MAX_SMS_SEGMENTS. With no changes it sizes the stored texts (a rename).
 */
export function changedWarningTexts(
  current: StoredWarningTexts | undefined,
  changes: WarningTextChange[],
  brand: string,
): CheckedWarningTexts {
  const problems: SmsTextProblem[] = [];
  const texts: Partial<Record<WarningKey, Record<string, string>>> = Object.fromEntries(
    WARNING_KEYS.map((warning) => [warning, { ...warningTextsOf(current, warning) }]),
  );
  const seen = new Set<string>();
  for (const { warning, language, text } of changes) {
    const tag = canonicalLanguageTag(language);
    const problem = (detail: string) => problems.push({ setting: 'warning_text', warning, language: tag ?? language, detail });
    if (!isWarningKey(warning)) {
      problem(
        `warning text ${JSON.stringify(`${warning}:${language}`)}: unknown warning ${JSON.stringify(warning)} (known: ${WARNING_KEYS.join(', ')})`,
      );
      continue;
    }
    if (!tag) {
      problem(`${warningTextName(warning, JSON.stringify(language))}: not a BCP 47 language tag (such as en, hi, es-MX)`);
      continue;
    }
    const name = warningTextName(warning, tag);
    if (seen.has(`${warning}:${tag}`)) problem(`${name}: given twice`);
    seen.add(`${warning}:${tag}`);
    if (text === null) delete texts[warning]![tag];
    else {
      for (const found of warningTextProblems(text)) problem(`${name}: ${found}`);
      texts[warning]![tag] = text;
    }
  }
  if (problems.length) throw new SmsTextRefused(problems);

  const { phone = {}, ...others } = texts;
  const kept = Object.entries(others).filter(([, byLanguage]) => Object.keys(byLanguage).length);
  const stored: StoredWarningTexts = {
    ...(Object.keys(phone).length ? { phone_change_texts: phone } : {}),
    ...(kept.length ? { warning_texts: Object.fromEntries(kept) } : {}),
  };
  const measured = measuredWarningTexts(stored, brand);
  if (measured.problems.length) throw new SmsTextRefused(measured.problems, { warningTexts: measured.sizes });
  return { stored, sizes: measured.sizes };
}

/** Sizes each warning text as sent with the company's name (as stored: no rule checked but the size), refusing nothing. */
export function measuredWarningTexts(
  settings: StoredWarningTexts | undefined,
  brand: string,
): { sizes: WarningSizes; problems: SmsTextProblem[] } {
  const sizes: WarningSizes = {};
  const problems: SmsTextProblem[] = [];
  for (const warning of WARNING_KEYS) {
    for (const [language, text] of Object.entries(warningTextsOf(settings, warning) ?? {})) {
      const size = smsSize(warningMessage(text, brand));
      sizes[warning] = { ...sizes[warning], [language]: size };
      if (size.segments > MAX_SMS_SEGMENTS) {
        const counted = `${size.units} ${size.encoding === 'GSM-7' ? 'GSM-7 characters' : 'UCS-2 (UTF-16) units'}`;
        problems.push({
          setting: 'warning_text',
          warning,
          language,
          detail: `${warningTextName(warning, language)}: the message would need ${size.segments} SMS (${counted}, with the company name); at most ${MAX_SMS_SEGMENTS}`,
        });
      }
    }
  }
  return { sizes, problems };
}

/**
 * The warning as sent: the company's text in `language` (one of its texts of this warning, chosen on
 * the send path) with its name in, else the built-in English (`builtIn`: another English text).
 */
export function warningIn(
  company: { name: string; sms_text?: StoredWarningTexts | undefined },
  warning: WarningKey,
  language: string | undefined,
  builtIn = BUILT_IN_WARNING_TEXTS[warning],
): { text: string; language: string } {
  const text = language === undefined ? undefined : warningTextsOf(company.sms_text, warning)?.[language];
  return text !== undefined
    ? { text: warningMessage(text, company.name), language: language! }
    : { text: warningMessage(builtIn, company.name), language: 'built-in' };
}

/** The company's default language when it has a text of this warning in it (no caller's language to match). */
export function defaultWarningLanguage(
  settings: (StoredWarningTexts & { default_language?: string | undefined }) | undefined,
  warning: WarningKey,
): string | undefined {
  const language = settings?.default_language;
  return language !== undefined && warningTextsOf(settings, warning)?.[language] !== undefined ? language : undefined;
}
