import * as z from 'zod/mini';
import type { StaffActionRecord } from '../store/staff-store.js';

// A back-office action on a user as the lists show it (API contract 3.14): the back office's view
// of the user and the user's own export (3.11, "who looked at me"). What, by whom and when: the
// reason stays in the record and the audit log.

export const listedStaffAction = z.object({
  action: z.string().check(z.meta({ description: 'search, view, sessions_end, status, device_remove, restore, phone_recover, ...' })),
  actor_id: z.string().check(z.meta({ description: 'The employee who acted' })),
  date: z.int().check(z.meta({ description: 'UNIX seconds' })),
});

export type ListedStaffAction = z.output<typeof listedStaffAction>;

export function listedStaffActionOf(record: Pick<StaffActionRecord, 'action' | 'actor_id' | 'at_ms'>): ListedStaffAction {
  return { action: record.action, actor_id: record.actor_id, date: Math.floor(record.at_ms / 1000) };
}
