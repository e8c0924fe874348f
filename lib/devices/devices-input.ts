import type { Call, Principal } from '../call.js';

// GET /wallet/v3/auth/devices takes no input: the token says whose devices.

export type DevicesCall = Call<Record<string, never>, Record<string, never>, Principal>;
