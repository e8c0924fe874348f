import * as z from 'zod/mini';
import { sessionTokensResult } from '../sessions/session-result.js';

/** What step_up answers: a new access token of the same session, its auth_time now (the refresh token stays). */
export const stepUpResult = z.lazy(() => {
  const { token, expires_in } = sessionTokensResult();
  return z.object({ message: z.string(), token, expires_in });
});

export type StepUpResult = z.output<typeof stepUpResult>;
