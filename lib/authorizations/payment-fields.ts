import * as z from 'zod/mini';

// The fields that say which payment a user approves (API contract 3.8), shared by the authorization
// the app asks for and the redeem the payment service makes, so both read the same values the same way.

const AMOUNT_PATTERN = /^(\d{1,12})(?:\.(\d{1,4}))?$/;

/**
 * An amount in one spelling per value: no leading zeros, no trailing fraction zeros, so "10.50",
 * "010.5" and "10.5" are one string and compare as decimals, never as floats.
 */
export function normalizeAmount(amount: string): string {
  const [, whole = '0', fraction = ''] = AMOUNT_PATTERN.exec(amount) ?? [];
  const integer = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  return decimals ? `${integer}.${decimals}` : integer;
}

/** A decimal string, > 0, at most 12 integer and 4 fraction digits; normalised (normalizeAmount). */
export const amountField = z.pipe(
  z.string({ error: 'must be a decimal string, such as "10.50"' }).check(
    z.regex(AMOUNT_PATTERN, 'must be a decimal string with at most 12 integer and 4 fraction digits, such as "10.50"'),
    z.refine((value: string) => /[1-9]/.test(value), 'must be greater than 0'),
    z.meta({ description: 'A decimal string greater than 0, at most 12 integer and 4 fraction digits: "10.5" and "10.50" are one amount' }),
  ),
  z.transform(normalizeAmount),
);

// The currencies this runtime knows (ICU's list of ISO 4217 codes in use).
let currencies: Set<string> | undefined;
/** Read on first use: ICU's list costs a few ms of a cold start. */
function isCurrency(code: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
}

export const currencyField = z.string().check(
  z.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code: three capital letters'),
  // Said once: a code of the wrong form is not also "not in use".
  z.refine((code: string) => !/^[A-Z]{3}$/.test(code) || isCurrency(code), 'is not an ISO 4217 currency in use'),
  z.meta({ description: 'ISO 4217 code, three capital letters', example: 'EUR' }),
);

/** Free text of the payment, compared exactly: 1-128 characters, no control characters. */
const paymentText = (description: string) =>
  z.string().check(z.minLength(1), z.maxLength(128), z.regex(/^[^\p{Cc}]*$/u, 'must not hold control characters'), z.meta({ description }));

export const payeeField = paymentText('Who is paid (1-128 characters), compared exactly');
export const referenceField = paymentText("The payment's own id (1-128 characters): one live authorization per reference and user");
