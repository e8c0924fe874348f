import type { Endpoint } from './endpoint.js';
import { referralListEndpoint } from './referral-list-endpoint.js';
import { registerUserEndpoint } from './register-user-endpoint.js';
import { sendCodeEndpoint } from './send-code-endpoint.js';
import { verifyCodeEndpoint } from './verify-code-endpoint.js';

/** Every operation of the API, in the order the document lists them. */
export const endpoints: readonly Endpoint[] = [registerUserEndpoint, sendCodeEndpoint, verifyCodeEndpoint, referralListEndpoint];
