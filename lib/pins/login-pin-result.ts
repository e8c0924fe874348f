import * as z from 'zod/mini';
import { sessionResult } from '../sessions/session-result.js';

export const loginPinResult = z.lazy(() => sessionResult());

export type LoginPinResult = z.output<typeof loginPinResult>;
