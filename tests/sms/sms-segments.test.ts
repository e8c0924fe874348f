import { describe, expect, it } from 'vitest';
import { smsSize } from '../../lib/sms/sms-segments.js';

describe('SMS segments, counted as a phone counts them', () => {
  it('sends 160 GSM-7 characters as 1 SMS, 161 as 2 (153 a part), 306 as 2, 307 as 3', () => {
    expect(smsSize('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSize('a'.repeat(161))).toEqual({ encoding: 'GSM-7', units: 161, segments: 2 });
    expect(smsSize('a'.repeat(306))).toEqual({ encoding: 'GSM-7', units: 306, segments: 2 });
    expect(smsSize('a'.repeat(307))).toEqual({ encoding: 'GSM-7', units: 307, segments: 3 });
  });

  it("counts the GSM alphabet's own accented letters and symbols as one character each", () => {
    expect(smsSize('£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà@\n\r')).toMatchObject({ encoding: 'GSM-7', units: 44 });
  });

  it('counts an extension character ({ } [ ] ~ ^ \\ | €) as 2, and never splits one across parts', () => {
    expect(smsSize('{}[]~^\\|€')).toEqual({ encoding: 'GSM-7', units: 18, segments: 1 });
    expect(smsSize(`${'a'.repeat(158)}€`)).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSize(`${'a'.repeat(159)}€`)).toEqual({ encoding: 'GSM-7', units: 161, segments: 2 });
    // 152 + an escape pair cannot share the first part's 153 septets: 3 parts, not 2.
    expect(smsSize(`${'a'.repeat(152)}€${'a'.repeat(152)}`)).toEqual({ encoding: 'GSM-7', units: 306, segments: 3 });
  });

  it('turns the whole text into UCS-2 for one emoji (2 units): 70 units in 1 SMS, 67 a part', () => {
    expect(smsSize(`${'a'.repeat(158)}😀`)).toEqual({ encoding: 'UCS-2', units: 160, segments: 3 });
    expect(smsSize(`${'a'.repeat(68)}😀`)).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    expect(smsSize(`${'a'.repeat(69)}😀`)).toEqual({ encoding: 'UCS-2', units: 71, segments: 2 });
    expect(smsSize(`${'a'.repeat(133)}ж`)).toEqual({ encoding: 'UCS-2', units: 134, segments: 2 });
    expect(smsSize(`${'a'.repeat(134)}ж`)).toEqual({ encoding: 'UCS-2', units: 135, segments: 3 });
    // 66 + a surrogate pair cannot share the first part's 67 units: 134 units in 3 parts, not 2.
    expect(smsSize(`${'a'.repeat(66)}😀${'a'.repeat(66)}`)).toEqual({ encoding: 'UCS-2', units: 134, segments: 3 });
  });

  it('counts Devanagari as UCS-2, a unit a character', () => {
    expect(smsSize('आपका कोड')).toEqual({ encoding: 'UCS-2', units: 8, segments: 1 });
    expect(smsSize('क'.repeat(134))).toEqual({ encoding: 'UCS-2', units: 134, segments: 2 });
    expect(smsSize('क'.repeat(135))).toEqual({ encoding: 'UCS-2', units: 135, segments: 3 });
  });

  it('goes UCS-2 for a character outside the GSM alphabet such as ` or ç', () => {
    expect(smsSize('`').encoding).toBe('UCS-2');
    expect(smsSize('ç').encoding).toBe('UCS-2');
  });
});
