// The service's clock, replaceable in tests so expiry can be checked without waiting.
export const clock = {
  now: (): number => Date.now(),
};

export const nowSeconds = (): number => Math.floor(clock.now() / 1000);
