import * as z from 'zod/mini';

// The two kinds of account, and the field every body that names one shares.
export const UserType = { EMPLOYEE: 1, CUSTOMER: 2 } as const;

/** Built with the body that holds it, on first use. */
export const userTypeField = () =>
  z.union([z.literal(UserType.EMPLOYEE), z.literal(UserType.CUSTOMER)], {
    error: 'must be 1 (employee) or 2 (customer)',
  });
