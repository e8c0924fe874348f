// A deployed function's numbering plan is libphonenumber's metadata less what only formatting reads
// (serverless/phone-metadata.cjs, applied by the bundles' esbuild plugin). Here, that the service's
// answers are the same with it as with the package's whole metadata: for numbers of every line type
// of every country and non-geographic code, written in E.164, nationally, and with the national prefix.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import type { MetadataJson } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/metadata.max.json';
import { describe, expect, it } from 'vitest';
import { numberingPlan } from '../../lib/users/phone-plan.js';

const { parsingMetadata } = createRequire(import.meta.url)('../../serverless/phone-metadata.cjs') as {
  parsingMetadata: (metadata: MetadataJson) => MetadataJson;
};

const whole = numberingPlan(metadata);
const deployed = numberingPlan(parsingMetadata(metadata));

/** A country's entry in metadata version 4: calling code, IDD prefix, national pattern, lengths, ..., national prefix (5), ..., types (11). */
type Entry = [string, string, string, number[], unknown, string | 0, ...unknown[]];

/** National numbers of each line type of an entry: strings its type patterns match, a few of each (the same ones every run). */
function numbersOf(entry: Entry, seed: number): string[] {
  const types = (entry[11] ?? []) as ([string] | [string, number[]] | 0)[];
  const patterns = [entry[2], ...types.flatMap((type) => (Array.isArray(type) && type[0] ? [type[0]] : []))];
  return patterns.flatMap((pattern, index) =>
    fc.sample(fc.stringMatching(new RegExp(`^(?:${pattern})$`)), { numRuns: 4, seed: seed * 31 + index }),
  );
}

describe('the numbering plan a function carries', () => {
  it('is smaller than the package’s by what only formatting reads', () => {
    expect(JSON.stringify(parsingMetadata(metadata)).length).toBeLessThan(JSON.stringify(metadata).length * 0.75);
  });

  it('knows the same countries', () => {
    expect(deployed.countriesWithNumbers()).toEqual(whole.countriesWithNumbers());
    expect(deployed.countriesWithNumbers().length).toBeGreaterThan(200);
  });

  it('answers every number of every line type of every country alike: valid or not, its E.164 form, country and line type', () => {
    const entries = [
      ...Object.values((metadata as unknown as { countries: Record<string, Entry> }).countries),
      ...Object.values((metadata as unknown as { nonGeographic: Record<string, Entry> }).nonGeographic),
    ];
    const seen = { numbers: 0, valid: 0, types: new Set<string>() };
    entries.forEach((entry, seed) => {
      const [callingCode, , , , , nationalPrefix] = entry;
      for (const national of numbersOf(entry, seed)) {
        const written = [national, ...(nationalPrefix ? [`${nationalPrefix}${national}`] : [])];
        for (const phoneNumber of written) {
          const e164 = whole.toE164(`+${callingCode}`, phoneNumber);
          expect(deployed.toE164(`+${callingCode}`, phoneNumber), `+${callingCode} ${phoneNumber}`).toBe(e164);
          seen.numbers += 1;
          if (e164) seen.valid += 1;
        }
        const facts = whole.phoneFacts(`+${callingCode}${national}`);
        expect(deployed.phoneFacts(`+${callingCode}${national}`), `+${callingCode}${national}`).toEqual(facts);
        if (facts?.type) seen.types.add(facts.type);
      }
    });
    // The sample reaches valid numbers and the line types the fraud guard tells apart (contract 3.2).
    expect(seen.valid).toBeGreaterThan(seen.numbers / 4);
    expect([...seen.types]).toEqual(
      expect.arrayContaining(['MOBILE', 'FIXED_LINE', 'FIXED_LINE_OR_MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'VOIP', 'SHARED_COST']),
    );
  });
});
