import type { Call } from '../call.js';
import type { Principal } from '../sessions/access-tokens.js';

// GET /wallet/v3/auth/devices takes no input: the token says whose devices.

export type DevicesCall = Call<Record<string, never>, Record<string, never>, Principal>;
