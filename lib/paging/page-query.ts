import * as z from 'zod/mini';
import { queryInteger } from '../validation.js';

// How every list pages (API contract 3.4 and 3.9): limit 1-100, default 20, and the cursor of the
// page before.

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

export const pageQuery = {
  // A default given as input (prefault), so the document states it: zod omits defaults past a transform.
  limit: z.prefault(queryInteger(1, MAX_PAGE_SIZE), DEFAULT_PAGE_SIZE),
  cursor: z.optional(z.string().check(z.maxLength(512))),
};
