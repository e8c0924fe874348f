import * as z from 'zod/mini';

export const deviceListItem = z.object({
  device_key: z.string().check(z.regex(/^[0-9a-f]{32}$/), z.meta({ description: 'The handle login_pin and devices/remove take' })),
  device_type: z.nullable(z.int()),
  device_id: z.nullable(z.string()),
  device_unique_id: z.nullable(z.string()),
  created_date: z.int().check(z.meta({ description: 'When it was first bound, UNIX seconds' })),
  last_used_date: z.int().check(z.meta({ description: 'Its last binding or PIN login, UNIX seconds' })),
  current: z.union([z.literal(0), z.literal(1)]).check(z.meta({ description: '1 for the device of the presenting session' })),
});

export const devicesResult = z.object({
  devices: z.array(deviceListItem).check(z.meta({ description: "The user's bound devices, most recently used first" })),
});

export type DevicesResult = z.output<typeof devicesResult>;
