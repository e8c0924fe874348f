import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';
import { countStaffLookup } from '../store/staff-store.js';
import type { Staff } from './staff-gate.js';

// Searches and views share one budget per employee and clock hour (ADMIN_LOOKUPS_PER_HOUR, API
// contract 3.14), so neither can be used to read the company's users in bulk.

const HOUR = 3600;

/** Counts one lookup of the employee's hour, or refuses it (429 code 12, Retry-After: the hour's end). */
export async function countLookup(app: App, staff: Staff, companyId: string): Promise<void> {
  const now = epochSeconds(app.clock);
  const hour = Math.floor(now / HOUR);
  if (await countStaffLookup(app.table, companyId, staff.userId, hour, app.config.admin.lookupsPerHour)) return;
  throw new AppError('TOO_MANY_REQUESTS', {
    detail: 'this employee’s searches and views of the hour are used up',
    headers: { 'retry-after': String(Math.max(1, (hour + 1) * HOUR - now)) },
    event: { event: 'limited', limit: 'staff_lookups' },
  });
}
