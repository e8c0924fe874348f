import * as z from 'zod/mini';

// What a client receives when it gets a session: from registration and from a login code.

/** Built with the result that holds it, on first use. */
export const sessionResult = () =>
  z.object({
    message: z.string(),
    token: z
      .object({
        type: z.literal('Token').check(z.meta({ description: 'The scheme name to send in Authorization' })),
        token: z.string().check(z.meta({ description: 'Opaque; 256 random bits, base64url' })),
      })
      .check(z.meta({ description: 'Send back as `Authorization: Token <token>`' })),
    user_id: z.string().check(z.regex(/^[0-9a-f]{32}$/), z.meta({ description: '32 lower-case hex characters' })),
    device_key: z.optional(
      z
        .string()
        .check(
          z.regex(/^[0-9a-f]{32}$/),
          z.meta({ description: 'With device_public_key: the handle of the bound device (32 lower-case hex), for login_pin' }),
        ),
    ),
  });
