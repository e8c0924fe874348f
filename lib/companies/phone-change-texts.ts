import { type SmsSize, smsSize } from '../sms/sms-segments.js';
import { canonicalLanguageTag, MAX_SMS_SEGMENTS, type SmsTextProblem, SmsTextRefused } from '../sms/sms-text.js';

// The SIM-swap warning a company may write per language (API contract 3.11 and 7): the old number
// is told the account moved. It is no code text, so it has rules of its own: no {code}, no digits
// that read as one, {brand} the only placeholder; sized as the code texts are, with the name in.

/** The built-in English warning, for a company with no text in the caller's or its default language. */
export const BUILT_IN_PHONE_CHANGE_TEXT =
  'Your {brand} account was moved to another phone number. If you did not do this, contact {brand} at once.';

/** Four digits or more, a space, dot or hyphen allowed between them: read as a code ("123 456"). */
const CODE_LIKE_DIGITS = /\p{Nd}(?:[ .-]?\p{Nd}){3,}/u;

/** A change to the warning texts; text null removes the language's. */
export interface PhoneChangeTextChange {
  language: string;
  text: string | null;
}

export interface CheckedPhoneChangeTexts {
  /** By language tag; undefined: none left (the built-in English text). */
  texts: Record<string, string> | undefined;
  /** Each warning as sent with the company's name. */
  sizes: Record<string, SmsSize>;
}

/** The warning as sent: {brand} is the company's name. */
export function phoneChangeMessage(text: string, brand: string): string {
  // A function, not a string: a name holding "$&" stays as it is.
  return text.replaceAll('{brand}', () => brand);
}

/** What is wrong with a warning text as written (none: []). */
export function phoneChangeTextProblems(text: string): string[] {
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

/**
 * Applies changes to a company's warning texts and sizes every one with the company's name:
 * SmsTextRefused, with every problem one a line, when one breaks a rule or needs more than
 * MAX_SMS_SEGMENTS. With no changes it sizes the stored texts (a rename).
 */
export function changedPhoneChangeTexts(
  current: Record<string, string> | undefined,
  changes: PhoneChangeTextChange[],
  brand: string,
): CheckedPhoneChangeTexts {
  const problems: SmsTextProblem[] = [];
  const texts = { ...current };
  const seen = new Set<string>();
  for (const { language, text } of changes) {
    const tag = canonicalLanguageTag(language);
    const problem = (detail: string) => problems.push({ setting: 'phone_change_text', language: tag ?? language, detail });
    if (!tag) {
      problem(`phone-change text ${JSON.stringify(language)}: not a BCP 47 language tag (such as en, hi, es-MX)`);
      continue;
    }
    if (seen.has(tag)) problem(`phone-change text ${tag}: given twice`);
    seen.add(tag);
    if (text === null) delete texts[tag];
    else {
      for (const found of phoneChangeTextProblems(text)) problem(`phone-change text ${tag}: ${found}`);
      texts[tag] = text;
    }
  }
  if (problems.length) throw new SmsTextRefused(problems);

  const measured = measuredPhoneChangeTexts(texts, brand);
  if (measured.problems.length) throw new SmsTextRefused(measured.problems, { phoneChangeTexts: measured.sizes });
  return { texts: Object.keys(texts).length ? texts : undefined, sizes: measured.sizes };
}

/** Sizes each warning text as sent with the company's name (as stored: no rule checked but the size), refusing nothing. */
export function measuredPhoneChangeTexts(
  texts: Record<string, string> | undefined,
  brand: string,
): { sizes: Record<string, SmsSize>; problems: SmsTextProblem[] } {
  const sizes: Record<string, SmsSize> = {};
  const problems: SmsTextProblem[] = [];
  for (const [language, text] of Object.entries(texts ?? {})) {
    const size = smsSize(phoneChangeMessage(text, brand));
    sizes[language] = size;
    if (size.segments > MAX_SMS_SEGMENTS) {
      const counted = `${size.units} ${size.encoding === 'GSM-7' ? 'GSM-7 characters' : 'UCS-2 (UTF-16) units'}`;
      problems.push({
        setting: 'phone_change_text',
        language,
        detail: `phone-change text ${language}: the message would need ${size.segments} SMS (${counted}, with the company name); at most ${MAX_SMS_SEGMENTS}`,
      });
    }
  }
  return { sizes, problems };
}
