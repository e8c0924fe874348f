import * as z from 'zod/mini';
import type { Call, Principal } from '../call.js';

// The not_me body (API contract 3.15): none.
export const notMeBody = z.lazy(() => z.object({}));

export type NotMeCall = Call<z.output<typeof notMeBody>, Record<string, never>, Principal>;
