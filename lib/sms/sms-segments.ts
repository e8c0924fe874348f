// How many SMS a text costs, counted as a phone counts it (3GPP TS 23.038 and 23.040). A text
// whose every character is in the GSM 7-bit alphabet goes as GSM-7: 160 septets in one SMS, 153
// a part once split (the rest of each part is the concatenation header); a character of the
// extension table (escape + character) takes 2 septets. Any other character turns the whole
// text into UCS-2: 70 UTF-16 units in one SMS, 67 a part once split, an emoji (a surrogate pair)
// 2 units. A part never splits an escape sequence or a surrogate pair.

const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENSION = new Set('\f^{}\\[~]|€');

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSize {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 units (UCS-2). */
  units: number;
  segments: number;
}

/** The units one SMS holds in each encoding: alone, and as a part of a longer text. */
export const SMS_SEGMENT_UNITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

function isGsm7(character: string): boolean {
  return GSM_BASIC.has(character) || GSM_EXTENSION.has(character);
}

/** The units each character takes in the text's encoding (an emoji's surrogate pair: 2 UTF-16 units). */
function characterUnits(text: string, encoding: SmsEncoding): number[] {
  if (encoding === 'UCS-2') return Array.from(text, (character) => character.length);
  return Array.from(text, (character) => (GSM_EXTENSION.has(character) ? 2 : 1));
}

export function smsSize(text: string): SmsSize {
  const encoding: SmsEncoding = Array.from(text).every(isGsm7) ? 'GSM-7' : 'UCS-2';
  const units = characterUnits(text, encoding);
  const total = units.reduce((sum, size) => sum + size, 0);
  const { single, part } = SMS_SEGMENT_UNITS[encoding];
  if (total <= single) return { encoding, units: total, segments: 1 };
  // Parts filled in order; a character that does not fit whole starts the next part.
  let segments = 1;
  let used = 0;
  for (const size of units) {
    if (used + size > part) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return { encoding, units: total, segments };
}
