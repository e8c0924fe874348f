import * as z from 'zod/mini';

/** What employees/role answers: the employee and the role they now have. */
export const employeeRoleResult = z.object({
  message: z.string(),
  user_id: z.string(),
  role: z.enum(['support', 'admin', 'none']),
});

export type EmployeeRoleResult = z.output<typeof employeeRoleResult>;
