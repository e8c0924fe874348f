import * as z from 'zod/mini';

/** What devices/approve answers: the device settled. */
export const devicesApproveResult = z.object({ message: z.string(), device_key: z.string() });

export type DevicesApproveResult = z.output<typeof devicesApproveResult>;
