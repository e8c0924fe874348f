import * as z from 'zod/mini';
import { sessionTokensResult } from './session-result.js';

export const tokenRefreshResult = z.lazy(() =>
  z.object({
    message: z.string(),
    ...sessionTokensResult(),
    user_id: z.string().check(z.regex(/^[0-9a-f]{32}$/), z.meta({ description: '32 lower-case hex characters' })),
  }),
);

export type TokenRefreshResult = z.output<typeof tokenRefreshResult>;
