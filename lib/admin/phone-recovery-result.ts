import * as z from 'zod/mini';

/** A recovery started: it waits for another employee, an admin, to approve it before `approve_by`. */
export const phoneRecoverResult = z.object({ message: z.string(), change_id: z.string(), approve_by: z.number() });
/** A recovery approved: it runs as a pending change from now, due at `effective_at`. */
export const phoneApproveResult = z.object({ message: z.string(), change_id: z.string(), effective_at: z.number() });
export const phoneCancelResult = z.object({ message: z.string(), change_id: z.string() });

export type PhoneRecoverResult = z.output<typeof phoneRecoverResult>;
export type PhoneApproveResult = z.output<typeof phoneApproveResult>;
export type PhoneCancelResult = z.output<typeof phoneCancelResult>;
