// What the service reads of libphonenumber's numbering plan (lib/users/phone-plan.ts): a number's
// parsing (calling code, national prefix, possible lengths, leading digits), its validity and its
// line type, never its formatting. A bundle carries the plan without the parts only formatting
// reads, about a third of it (docs/performance.md); tests/users/phone-plan.test.ts proves the
// service's answers the same with it for every country's numbers of every line type.

/** A country's entry in metadata version 4 at these places is read by formatting alone: its formats, the national prefix's formatting rule, and whether that prefix may be left out when formatting. */
const FORMATTING_ONLY = [4, 6, 9];

/** The metadata without what only formatting reads (0 is the package's own "none"); refuses a layout it does not know. */
function parsingMetadata(metadata) {
  if (metadata.version !== 4)
    throw new Error(`libphonenumber metadata version ${metadata.version}: serverless/phone-metadata.cjs knows version 4`);
  const trimmed = (entries) =>
    Object.fromEntries(
      Object.entries(entries ?? {}).map(([key, entry]) => [
        key,
        entry.map((value, place) => (FORMATTING_ONLY.includes(place) ? 0 : value)),
      ]),
    );
  return { ...metadata, countries: trimmed(metadata.countries), nonGeographic: trimmed(metadata.nonGeographic) };
}

module.exports = { parsingMetadata };
