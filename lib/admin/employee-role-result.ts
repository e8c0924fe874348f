import * as z from 'zod/mini';

/**
 * What employees/role answers: the role set (pending 0), or, for a role that gives power, the grant
 * another admin approves (pending 1, grant_id, approve_by).
 */
export const employeeRoleResult = z.object({
  message: z.string(),
  user_id: z.string(),
  role: z.enum(['support', 'admin', 'none']),
  pending: z.union([z.literal(0), z.literal(1)]).check(z.meta({ description: '1: asked, not yet set; another admin approves it' })),
  grant_id: z.optional(z.string().check(z.meta({ description: 'The grant another admin approves (employees/approve)' }))),
  approve_by: z.optional(z.number().check(z.meta({ description: 'UNIX seconds: the grant is void, unapproved, from then on' }))),
});

export type EmployeeRoleResult = z.output<typeof employeeRoleResult>;
