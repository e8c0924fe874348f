import * as z from 'zod/mini';

const described = <Schema extends z.ZodMiniType>(schema: Schema, description: string) => schema.check(z.meta({ description }));

/** A grant awaiting approval: a role (employees/approve) or a change of the security settings (company/approve). */
export const listedGrant = z.object({
  grant_id: z.string(),
  kind: described(z.enum(['role', 'company']), 'role: approve with employees/approve; company: with company/approve'),
  requested_by: described(z.string(), 'The admin who asked: another admin approves'),
  requested_at: described(z.int(), 'UNIX seconds'),
  approve_by: described(z.int(), 'UNIX seconds: void, unapproved, from then on'),
  user_id: z.optional(described(z.string(), 'A role grant: the employee it is for')),
  role: z.optional(z.enum(['support', 'admin'])),
  from_role: z.optional(described(z.enum(['none', 'support', 'admin']), 'A role grant: the role the employee has now')),
  settings: z.optional(described(z.array(z.string()), 'A company grant: the security settings it changes')),
  changes: z.optional(described(z.record(z.string(), z.unknown()), 'A company grant: the change as company/update took it')),
});

/** A recovery awaiting approval (users/phone/approve). */
export const listedRecovery = z.object({
  change_id: z.string(),
  user_id: z.string(),
  phone_last4: described(z.string(), 'The last 4 digits of the number it moves the account to'),
  started_by: described(z.string(), 'The employee who started it: another admin approves'),
  started_at: described(z.int(), 'UNIX seconds'),
  approve_by: described(z.int(), 'UNIX seconds: void, unapproved, from then on'),
});

export const approvalsListResult = z.object({
  grants: z.array(listedGrant),
  recoveries: z.array(listedRecovery),
});

export type ApprovalsListResult = z.output<typeof approvalsListResult>;
export type ListedGrant = z.output<typeof listedGrant>;
