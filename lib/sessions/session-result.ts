import * as z from 'zod/mini';

// What a client receives when it gets a session: from registration, a login code, a PIN login,
// and a refresh (API contract 3.12).

/** The tokens of a session, built with the result that holds them, on first use. */
export const sessionTokensResult = () => ({
  token: z
    .object({
      type: z.enum(['Token', 'DPoP']).check(
        z.meta({
          description:
            'The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)',
        }),
      ),
      token: z.string().check(
        z.meta({
          description:
            'An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), ' +
            'verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key',
        }),
      ),
    })
    .check(z.meta({ description: 'Send back as `Authorization: Token <token>` (or `Bearer <token>`)' })),
  refresh_token: z.string().check(
    z.meta({
      description:
        'Opaque; spent by POST /wallet/v3/auth/token/refresh for a new pair. Presented again after it was spent, it ends the session',
    }),
  ),
  expires_in: z.int().check(z.meta({ description: 'Seconds until the access token expires' })),
});

/** Built with the result that holds it, on first use. */
export const sessionResult = () =>
  z.object({
    message: z.string(),
    ...sessionTokensResult(),
    user_id: z.string().check(z.regex(/^[0-9a-f]{32}$/), z.meta({ description: '32 lower-case hex characters' })),
    device_key: z.optional(
      z.string().check(
        z.regex(/^[0-9a-f]{32}$/),
        z.meta({
          description:
            'With device_public_key: the handle of the bound device (32 lower-case hex), for login_pin. Bound by an OTP login, a new device is on probation (contract 3.15)',
        }),
      ),
    ),
    device_refused: z.optional(
      z
        .object({
          code: z.literal(22).check(z.meta({ description: 'DEVICE_LIMIT (409)' })),
          detail: z.string(),
        })
        .check(
          z.meta({
            description:
              'An OTP login’s device_public_key not bound: every device slot holds a settled device, and a binding never removes one (contract 3.15). The login itself succeeded',
          }),
        ),
    ),
  });
