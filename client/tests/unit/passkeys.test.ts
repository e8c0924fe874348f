import { describe, expect, it } from 'vitest';
import { browserPasskeys, creationOptionsFromJSON, requestOptionsFromJSON } from '../../src/index.js';

// The passkey helpers' conversion (API contract 3.16): the server's WebAuthn JSON to the binary
// arguments navigator.credentials takes, and a credential without toJSON() back to the JSON the
// server verifies. A fake CredentialsContainer stands for the browser.

const bytes = (...values: number[]) => new Uint8Array(values).buffer;
const text = (buffer: unknown) => [...new Uint8Array(buffer as ArrayBuffer)];

describe('passkeys: the WebAuthn JSON and navigator.credentials', () => {
  it('gives create the challenge, user id and excluded ids as bytes', () => {
    const options = creationOptionsFromJSON({
      challenge: 'AQID',
      rp: { id: 'wallet.example.com', name: 'Acme' },
      user: { id: '_-8', name: 'Acme ••0123', displayName: 'Ada' },
      excludeCredentials: [{ id: 'BAUG', transports: ['internal'] }],
    }) as Record<string, any>;
    expect(text(options.challenge)).toEqual([1, 2, 3]);
    expect(text(options.user.id)).toEqual([255, 239]);
    expect(text(options.excludeCredentials[0].id)).toEqual([4, 5, 6]);
    expect(options.excludeCredentials[0]).toMatchObject({ type: 'public-key', transports: ['internal'] });
    expect(options.rp).toEqual({ id: 'wallet.example.com', name: 'Acme' });
  });

  it('answers an assertion of a browser without toJSON() as the server takes it', async () => {
    let asked: any;
    const platform = browserPasskeys({
      create: async () => null,
      get: async (request: any) => {
        asked = request;
        return {
          id: 'BwgJ',
          rawId: bytes(7, 8, 9),
          type: 'public-key',
          authenticatorAttachment: 'platform',
          getClientExtensionResults: () => ({}),
          response: {
            clientDataJSON: bytes(123, 125),
            authenticatorData: bytes(1),
            signature: bytes(48, 6),
            userHandle: bytes(255, 239),
          },
        } as never;
      },
    });
    const answer = await platform.get({
      challenge: 'AQID',
      rpId: 'wallet.example.com',
      allowCredentials: [{ id: 'BwgJ', type: 'public-key' }],
    });
    expect(text(asked.publicKey.challenge)).toEqual([1, 2, 3]);
    expect(text(requestOptionsFromJSON({ challenge: 'AQID' }).challenge)).toEqual([1, 2, 3]);
    expect(answer).toEqual({
      id: 'BwgJ',
      rawId: 'BwgJ',
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: { clientDataJSON: 'e30', authenticatorData: 'AQ', signature: 'MAY', userHandle: '_-8' },
    });
    await expect(
      browserPasskeys({ create: async () => null, get: async () => null }).create({ challenge: 'AQID', user: { id: 'AQ' } }),
    ).rejects.toThrow('no passkey was created');
  });
});
