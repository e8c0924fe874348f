import * as z from 'zod/mini';
import type { Call, RequestKey, RequestProof } from '../call.js';
import { REFRESH_TOKEN_MAX_LENGTH } from './refresh-tokens.js';

// The token/refresh body (API contract 3.12): the refresh token a login or the last refresh answered.

export const tokenRefreshBody = z.lazy(() =>
  z.object({
    refresh_token: z
      .string()
      .check(
        z.minLength(1, 'is required'),
        z.maxLength(REFRESH_TOKEN_MAX_LENGTH, `must be at most ${REFRESH_TOKEN_MAX_LENGTH} characters`),
        z.meta({ description: 'The refresh_token of the last login or refresh answer' }),
      ),
  }),
);

export type TokenRefreshInput = z.output<typeof tokenRefreshBody>;
export type TokenRefreshCall = Call<TokenRefreshInput> & RequestKey & RequestProof;
