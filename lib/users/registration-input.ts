import * as z from 'zod';
import { phoneFields, withPhoneE164 } from './phone-number.js';

// The registration body (API contract 3.1): one schema validates it and gives its type.

export const UserType = { EMPLOYEE: 1, CUSTOMER: 2 } as const;

/** PINs of 4-6 digits that are neither one repeated digit nor a straight run (1234, 4321). */
export function isGuessablePin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((digit, index) => digit - digits[index]!));
  return steps.size === 1 && [0, 1, -1].includes([...steps][0]!);
}

const pin = z
  .string()
  .regex(/^[0-9]{4,6}$/, 'must be 4 to 6 digits')
  .refine((value) => !isGuessablePin(value), 'must not be one repeated digit or a straight run');

const shortText = (max: number) => z.string().trim().min(1).max(max);

const locationPoint = z
  .string()
  .trim()
  .regex(/^-?\d{1,3}(\.\d+)?\s*,\s*-?\d{1,3}(\.\d+)?$/, 'must be "latitude,longitude"')
  .transform((value, context) => {
    const [lat, lng] = value.split(',').map((part) => Number(part.trim())) as [number, number];
    if (lat < -90 || lat > 90 || lng < -180 || lng > 180) {
      context.addIssue({ code: 'custom', message: 'latitude must be -90..90 and longitude -180..180' });
      return z.NEVER;
    }
    return { lat, lng };
  });

/** 1900-01-01 in UNIX milliseconds: an earlier birth date is a unit mistake, not a person. */
const EARLIEST_BIRTH_DATE_MS = -2_208_988_800_000;

const registrationFields = withPhoneE164(
  z.object({
    ...phoneFields,
    user_type: z.union([z.literal(UserType.EMPLOYEE), z.literal(UserType.CUSTOMER)], {
      error: 'must be 1 (employee) or 2 (customer)',
    }),
    first_name: shortText(100),
    last_name: shortText(100),
    password: z
      .string()
      .refine((value) => [...value].length >= 8 && [...value].length <= 128, 'must be 8 to 128 characters'),
    login_pin: pin,
    transaction_pin: pin,
    email: z.string().trim().max(254).pipe(z.email()).transform((value) => value.toLowerCase()).optional(),
    account_number_prefix: z.string().trim().regex(/^[A-Za-z0-9-]{1,20}$/, 'must be 1 to 20 letters, digits or -').optional(),
    status_id: z.int().min(1).max(1000).optional(),
    birth_date: z
      .int()
      .refine((value) => value > EARLIEST_BIRTH_DATE_MS && value < Date.now(), 'must be UNIX milliseconds in the past')
      .optional(),
    image: z.url({ protocol: /^https?$/ }).max(2048).optional(),
    kyc_status: z.union([z.literal(1), z.literal(2)], { error: 'must be 1 (pending) or 2 (approved)' }).optional(),
    country_id: shortText(64).optional(),
    kyc_process_status: z
      .union([z.int(), z.string().regex(/^[0-9]+$/).transform(Number)])
      .pipe(z.int().min(1, 'must be 1, 2 or 3').max(3, 'must be 1, 2 or 3'))
      .optional(),
    location_point: locationPoint.optional(),
    device_type: z.int().min(0).max(1000).optional(),
    device_id: shortText(256).optional(),
    device_unique_id: shortText(256).optional(),
    parent_user_id: z.string().regex(/^[0-9a-fA-F]{32}$/, 'must be a 32-hex user id').transform((value) => value.toLowerCase()).optional(),
    referral_code: z.string().trim().regex(/^[0-9A-Za-z]{4,32}$/, 'must be letters and digits').transform((value) => value.toUpperCase()).optional(),
    // The seed lists it; the server sets it from the caller's token instead.
    cretaed_by: z.unknown().optional().meta({ description: 'Accepted and ignored: set from the token, never from the body' }),
  }),
);

/** The seed's parameter table spells location_point as location_poin: accept both. */
function acceptLocationAlias(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const { location_poin, ...rest } = body as Record<string, unknown>;
  return rest.location_point === undefined && location_poin !== undefined ? { ...rest, location_point: location_poin } : rest;
}

export const registrationBody = z.preprocess(acceptLocationAlias, registrationFields);

export type RegistrationInput = z.output<typeof registrationBody>;
