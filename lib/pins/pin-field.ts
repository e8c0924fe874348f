import * as z from 'zod/mini';

// The rule of a new PIN (API contract 3.1), for registration, change_pin and reset_pin: in a module
// of its own, so the PIN functions do not load registration's phone rules (and their numbering plan).

/** Whether a PIN is one repeated digit (1111) or a straight run (1234, 4321): refused as guessable. */
function isGuessablePin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((digit, index) => digit - digits[index]!));
  return steps.size === 1 && [0, 1, -1].includes([...steps][0]!);
}

/** A PIN as registration, change_pin and reset_pin take it (API contract 3.1), built with its schema on first use. */
export const pin = () =>
  z.string().check(
    z.regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits'),
    z.refine((value: string) => !isGuessablePin(value), 'must not be one repeated digit or a straight run'),
  );
