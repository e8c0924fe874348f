// The page's own count of the SMS a text takes, as the settings screen shows it while a template is
// typed: the service's rule (lib/sms/sms-segments.ts and sms-text.ts, API contract 7), written again
// here because the page imports nothing of lib/. tests/console/sms-size.test.ts checks that both
// count the same texts alike. The units of one SMS and of each part come from company/view's rules.
//
// A text whose every character is in the GSM 7-bit alphabet goes as GSM-7 (a character of the
// extension table takes 2 septets); any other character makes the whole text UCS-2, counted in
// UTF-16 units (an emoji: 2). A part never splits an escape sequence or a surrogate pair.

const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENSION = new Set('\f^{}\\[~]|€');

export type Encoding = 'GSM-7' | 'UCS-2';
export type SegmentUnits = Record<Encoding, { single: number; part: number }>;

export interface Size {
  encoding: Encoding;
  units: number;
  segments: number;
}

/** The service's units, for a page that has not read company/view's rules yet (and for the tests). */
export const STANDARD_UNITS: SegmentUnits = { 'GSM-7': { single: 160, part: 153 }, 'UCS-2': { single: 70, part: 67 } };

export function smsSize(text: string, limits: SegmentUnits = STANDARD_UNITS): Size {
  const characters = Array.from(text);
  const encoding: Encoding = characters.every((character) => GSM_BASIC.has(character) || GSM_EXTENSION.has(character)) ? 'GSM-7' : 'UCS-2';
  const sizes = characters.map((character) => (encoding === 'UCS-2' ? character.length : GSM_EXTENSION.has(character) ? 2 : 1));
  const units = sizes.reduce((sum, size) => sum + size, 0);
  const { single, part } = limits[encoding];
  if (units <= single) return { encoding, units, segments: 1 };
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return { encoding, units, segments };
}

export interface CodeTextValues {
  /** As long as the longest code: '000000'. */
  code: string;
  brand: string;
  minutes: number;
  appHash?: string | undefined;
  webotpDomain?: string | undefined;
}

/** A code text as sent: the placeholders filled in one pass, then the app hash line and the WebOTP line. */
export function codeMessage(template: string, values: CodeTextValues): string {
  const filled = template.replace(/\{(code|brand|minutes)\}/g, (_, name: string) =>
    name === 'code' ? values.code : name === 'brand' ? values.brand : String(values.minutes),
  );
  const lines = [filled];
  if (values.appHash) lines.push(values.appHash);
  if (values.webotpDomain) lines.push(`@${values.webotpDomain} #${values.code}`);
  return lines.join('\n');
}

/** A phone-change warning as sent: {brand} is the company's name. */
export function warningMessage(text: string, brand: string): string {
  return text.replaceAll('{brand}', () => brand);
}

/** "2 SMS · GSM-7 · 161 characters", as the page writes a size. */
export function sizeText(size: Size): string {
  return `${size.segments} SMS · ${size.encoding} · ${size.units} ${size.encoding === 'GSM-7' ? 'characters' : 'UTF-16 units'}`;
}
