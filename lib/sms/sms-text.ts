import { domainToASCII } from 'node:url';
import type { SmsTextSettings } from '../store/company-store.js';
import { type SmsSize, smsSize } from './sms-segments.js';

// The text of a code's SMS (API contract 7): a template filled in, then the lines that let a
// phone fill the code in by itself; and the rules a company's settings must pass to be stored.
// Which template a request gets is chosen on the send path alone (otp-sms-text.ts), so that
// negotiator is bundled into the send paths of a user's request only (login_phone, verify_otp, phone/change and the
// changes that wait), not into every function that reads a company.

/** The built-in English text, for a company with no template of its own. */
export const BUILT_IN_TEMPLATE = '{code} is your {brand} verification code. It expires in {minutes} minutes. Never share it.';

/** The built-in text when not even a shortened company name fits beside the autofill lines. */
export const BUILT_IN_TEMPLATE_WITHOUT_BRAND = '{code} is your verification code. It expires in {minutes} minutes. Never share it.';

/** A message is never cut: a template whose message would need more SMS than this is refused. */
export const MAX_SMS_SEGMENTS = 2;

/** The placeholders a code text's template may hold; {code} it must. */
export const PLACEHOLDERS = ['code', 'brand', 'minutes'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
type Values = Record<Placeholder, string>;

const PLACEHOLDER = /\{(code|brand|minutes)\}/g;
/** Android SMS Retriever's app hash: the first 11 characters of a base64 SHA-256 (no padding). */
export const APP_HASH_LENGTH = 11;
const APP_HASH = new RegExp(`^[A-Za-z0-9+/]{${APP_HASH_LENGTH}}$`);
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** As long as any code newOtpCode draws: 6 digits. A message is sized with it. */
export const LONGEST_CODE = '000000';

/**
 * A message as sent: the template with {code}, {brand} and {minutes} filled in, then the lines
 * that let a phone fill the code in by itself.
 */
export function smsMessage(template: string, message: MessageValues, settings?: SmsTextSettings): string {
  const values = { code: message.code, brand: message.brand, minutes: minutesOf(message.ttlSeconds) };
  return withAutofillLines(fill(template, values), settings, message.code);
}

/** A filled-in message as a send would carry it. */
export interface MessageValues {
  code: string;
  brand: string;
  ttlSeconds: number;
}

/** Whether the message fits MAX_SMS_SEGMENTS. */
export function fitsSms(template: string, message: MessageValues, settings: SmsTextSettings | undefined): boolean {
  return smsSize(smsMessage(template, message, settings)).segments <= MAX_SMS_SEGMENTS;
}

let segmenter: Intl.Segmenter | undefined;
/** Built on first use: constructing it loads ICU's break rules, about 10 ms of every function's cold start. */
const graphemeSegmenter = () => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));

/**
 * The brand as it fits the message: whole, else its longest start that fits, cut after a whole
 * word where one ends (a letter and its marks kept together where not); undefined when not even
 * one character fits, or the template has no {brand}.
 */
export function fittingBrand(template: string, message: MessageValues, settings: SmsTextSettings | undefined): string | undefined {
  if (fitsSms(template, message, settings)) return message.brand;
  if (!template.includes('{brand}')) return undefined;
  const graphemes = Array.from(graphemeSegmenter().segment(message.brand), ({ segment }) => segment);
  const startOf = (count: number) => graphemes.slice(0, count).join('').trimEnd();
  const fits = (brand: string) => brand !== '' && fitsSms(template, { ...message, brand }, settings);
  if (!fits(startOf(1))) return undefined;
  // Halving: 8 sizings for 200 characters on a send's path, not 200. The start found always fits;
  // a 2-unit character at a part's edge can make it a character short of the longest.
  let [fitting, tooLong] = [1, graphemes.length];
  while (tooLong - fitting > 1) {
    const middle = Math.floor((fitting + tooLong) / 2);
    if (fits(startOf(middle))) fitting = middle;
    else tooLong = middle;
  }
  const start = startOf(fitting);
  const wordsEnd = /\s/u.test(message.brand[start.length] ?? ' ') ? start.length : start.search(/\s+\S*$/u);
  const words = wordsEnd > 0 ? start.slice(0, wordsEnd).trimEnd() : '';
  return fits(words) ? words : start;
}

function minutesOf(ttlSeconds: number): string {
  return String(Math.round(ttlSeconds / 60));
}

function fill(template: string, values: Values): string {
  // One pass: a company name that reads "{code}" stays as it is.
  return template.replace(PLACEHOLDER, (_, name: Placeholder) => values[name]);
}

/** The app hash on a line of its own, then the WebOTP line, last as the format asks (SMS Retriever finds the hash anywhere). */
function withAutofillLines(text: string, settings: SmsTextSettings | undefined, code: string): string {
  const lines = [text];
  if (settings?.app_hash) lines.push(settings.app_hash);
  if (settings?.webotp_domain) lines.push(`@${settings.webotp_domain} #${code}`);
  return lines.join('\n');
}

// ---- What an operator may set ------------------------------------------------------------

/** Changes to a company's SMS text; null removes a setting. */
export interface SmsTextChanges {
  /** In the order given; text null removes the language's template. */
  templates?: { language: string; text: string | null }[];
  default_language?: string | null;
  app_hash?: string | null;
  webotp_domain?: string | null;
}

/** What a refused SMS text's problem is about: a setting, and the language of a text. */
export interface SmsTextProblem {
  setting: 'template' | 'default_language' | 'app_hash' | 'webotp_domain' | 'warning_text';
  /** A warning text's warning as given: a held change's kind or new_device (lib/companies/security-warning-texts.ts). */
  warning?: string;
  /** A template's or warning text's language tag as given (canonical once it is one); "built-in" for the English text. */
  language?: string;
  detail: string;
}

/** The texts' sizes, as far as a refused change got: each text sized once every rule but the size held. */
export interface SizesMeasured {
  /** Each code text, by language ("built-in" for the English text). */
  codeTexts?: Record<string, SmsSize>;
  /** Each security warning text, by warning and then by language. */
  warningTexts?: Partial<Record<string, Record<string, SmsSize>>>;
}

/** Settings an operator may not store: every problem found (its message: one a line), and the sizes measured. */
export class SmsTextRefused extends Error {
  constructor(
    readonly problems: SmsTextProblem[],
    readonly sizes: SizesMeasured = {},
  ) {
    super(problems.map(({ detail }) => detail).join('\n'));
  }
}

export interface CheckedSmsText {
  /** undefined: nothing left, the built-in text as before. */
  settings: SmsTextSettings | undefined;
  /** Each message as it would be sent with the longest values, by language ("built-in" for the English text). */
  sizes: Record<string, SmsSize>;
  warnings: string[];
}

/** A BCP 47 language tag in canonical case ("HI-in" -> "hi-IN"); undefined when it is not one. */
export function canonicalLanguageTag(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag.trim())[0];
  } catch {
    return undefined;
  }
}

/** A domain name as WebOTP writes it (lower case, IDN as punycode); undefined when it is not one. */
export function canonicalDomain(domain: string): string | undefined {
  const ascii = domainToASCII(domain.trim());
  const labels = ascii.split('.');
  if (!ascii || ascii.length > 253 || labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return undefined;
  // A numeric last label is an IP address, which an origin-bound code cannot name.
  return /^[0-9]+$/.test(labels.at(-1)!) ? undefined : ascii;
}

/** What is wrong with a template's placeholders (none: []). */
export function templateProblems(text: string): string[] {
  const problems: string[] = [];
  for (const [, name] of text.matchAll(/\{([^{}]*)\}/g)) {
    if (!PLACEHOLDERS.includes(name as Placeholder)) problems.push(`unknown placeholder {${name}} (known: {code}, {brand}, {minutes})`);
  }
  if (/[{}]/.test(text.replace(/\{[^{}]*\}/g, ''))) problems.push('a { or } outside a placeholder');
  if (!text.includes('{code}')) problems.push('no {code}: the message would not carry the code');
  return problems;
}

/**
 * Applies changes to a company's SMS text and checks the result as a whole: every message it
 * can send, with the code, the company's name, the minutes and the autofill lines filled in,
 * must fit in MAX_SMS_SEGMENTS. Throws SmsTextRefused with every problem.
 */
export function changedSmsText(
  current: SmsTextSettings | undefined,
  changes: SmsTextChanges,
  brand: string,
  codeTtlSeconds: number,
): CheckedSmsText {
  const problems: SmsTextProblem[] = [];
  const templates = { ...current?.templates };
  const seen = new Set<string>();
  for (const { language, text } of changes.templates ?? []) {
    const tag = canonicalLanguageTag(language);
    const problem = (detail: string) => problems.push({ setting: 'template', language: tag ?? language, detail });
    if (!tag) {
      problem(`template ${JSON.stringify(language)}: not a BCP 47 language tag (such as en, hi, es-MX)`);
      continue;
    }
    if (seen.has(tag)) problem(`template ${tag}: given twice`);
    seen.add(tag);
    if (text === null) delete templates[tag];
    else {
      for (const found of templateProblems(text)) problem(`template ${tag}: ${found}`);
      templates[tag] = text;
    }
  }

  const next: SmsTextSettings = { templates, ...pick(current) };
  if (changes.default_language !== undefined) {
    const tag = changes.default_language === null ? undefined : canonicalLanguageTag(changes.default_language);
    if (changes.default_language !== null && !tag)
      problems.push({
        setting: 'default_language',
        detail: `default language ${JSON.stringify(changes.default_language)}: not a BCP 47 language tag`,
      });
    next.default_language = tag;
  }
  if (next.default_language && !templates[next.default_language]) {
    problems.push({ setting: 'default_language', detail: `default language ${next.default_language}: the company has no template in it` });
  }
  if (changes.app_hash !== undefined) {
    if (changes.app_hash !== null && !APP_HASH.test(changes.app_hash)) {
      problems.push({
        setting: 'app_hash',
        detail: `app hash ${JSON.stringify(changes.app_hash)}: an SMS Retriever app hash is ${APP_HASH_LENGTH} characters of the base64 alphabet`,
      });
    }
    next.app_hash = changes.app_hash ?? undefined;
  }
  if (changes.webotp_domain !== undefined) {
    const domain = changes.webotp_domain === null ? undefined : canonicalDomain(changes.webotp_domain);
    if (changes.webotp_domain !== null && !domain) {
      problems.push({
        setting: 'webotp_domain',
        detail: `WebOTP domain ${JSON.stringify(changes.webotp_domain)}: not a domain name (such as wallet.example.com)`,
      });
    }
    next.webotp_domain = domain;
  }
  if (problems.length) throw new SmsTextRefused(problems);

  const stored: SmsTextSettings = {
    templates,
    ...(next.default_language ? { default_language: next.default_language } : {}),
    ...(next.app_hash ? { app_hash: next.app_hash } : {}),
    ...(next.webotp_domain ? { webotp_domain: next.webotp_domain } : {}),
  };
  const measured = measuredSmsText(stored, brand, codeTtlSeconds);
  if (measured.problems.length) throw new SmsTextRefused(measured.problems, { codeTexts: measured.sizes });
  const empty = Object.keys(stored).length === 1 && Object.keys(templates).length === 0;
  return { settings: empty ? undefined : stored, sizes: measured.sizes, warnings: measured.warnings };
}

function pick(current: SmsTextSettings | undefined): Omit<SmsTextSettings, 'templates'> {
  return { default_language: current?.default_language, app_hash: current?.app_hash, webotp_domain: current?.webotp_domain };
}

/** Every message a company's SMS text can send, sized with the longest values; a message over the limit is a problem. */
export interface MeasuredSmsText {
  /** By language ("built-in" for the English text, sent while there is no default language). */
  sizes: Record<string, SmsSize>;
  /** Each message over MAX_SMS_SEGMENTS. */
  problems: SmsTextProblem[];
  /** Each message an Android phone's SMS Retriever would not read (an app hash on a message of 2 SMS). */
  warnings: string[];
}

/** Sizes every message the settings can send (as stored: no rule checked but the size), refusing nothing. */
export function measuredSmsText(settings: SmsTextSettings | undefined, brand: string, codeTtlSeconds: number): MeasuredSmsText {
  settings ??= { templates: {} };
  const messages: [string, string][] = Object.entries(settings.templates);
  // Without a default language, a request that matches no template gets the built-in text.
  if (!settings.default_language) messages.push(['built-in', BUILT_IN_TEMPLATE]);
  const sizes: Record<string, SmsSize> = {};
  const problems: SmsTextProblem[] = [];
  const warnings: string[] = [];
  for (const [language, template] of messages) {
    const size = smsSize(smsMessage(template, { code: LONGEST_CODE, brand, ttlSeconds: codeTtlSeconds }, settings));
    sizes[language] = size;
    const counted = `${size.units} ${size.encoding === 'GSM-7' ? 'GSM-7 characters' : 'UCS-2 (UTF-16) units'}`;
    if (size.segments > MAX_SMS_SEGMENTS) {
      // Which fix is the operator's: how much of the name would fit this message.
      const fitting = fittingBrand(template, { code: LONGEST_CODE, brand, ttlSeconds: codeTtlSeconds }, settings);
      problems.push({
        setting: 'template',
        language,
        detail:
          `${language === 'built-in' ? 'the built-in English text' : `template ${language}`}: the message would need ${size.segments} SMS ` +
          `(${counted}, with a ${LONGEST_CODE.length}-digit code, the company name, the minutes and the autofill lines); at most ${MAX_SMS_SEGMENTS}` +
          (fitting ? `; the name fits up to ${JSON.stringify(fitting)}` : ''),
      });
    } else if (settings.app_hash && size.segments > 1) {
      // Android's SMS Retriever reads messages of at most 140 bytes: one SMS.
      warnings.push(`${language}: ${size.segments} SMS (${counted}); Android's SMS Retriever reads only single-SMS messages`);
    }
  }
  return { sizes, problems, warnings };
}
