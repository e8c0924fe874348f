import * as z from 'zod/mini';

/** A role grant approved: the employee has the role from now on. */
export const employeesApproveResult = z.object({
  message: z.string(),
  grant_id: z.string(),
  user_id: z.string(),
  role: z.enum(['support', 'admin']),
});

export type EmployeesApproveResult = z.output<typeof employeesApproveResult>;
