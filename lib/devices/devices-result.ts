import * as z from 'zod/mini';

const deviceKeyField = () =>
  z.string().check(z.regex(/^[0-9a-f]{32}$/), z.meta({ description: 'The handle login_pin and devices/remove take' }));

export const deviceListItem = z.object({
  device_key: deviceKeyField(),
  device_type: z.nullable(z.int()),
  device_id: z.nullable(z.string()),
  device_unique_id: z.nullable(z.string()),
  created_date: z.int().check(z.meta({ description: 'When it was first bound, UNIX seconds' })),
  last_used_date: z.int().check(z.meta({ description: 'Its last binding or PIN login, UNIX seconds' })),
  settled: z.union([z.literal(0), z.literal(1)]).check(
    z.meta({
      description:
        '1: its PIN logins are strong (bound at registration, or past its probation). 0: bound by an OTP login and on probation (contract 3.15)',
    }),
  ),
  probation_ends_at: z.nullable(
    z.int().check(
      z.meta({
        description:
          'On probation: when time settles it, UNIX seconds; null when it is settled, or when only an approval settles it (the owner logged in strongly meanwhile, or an employee’s)',
      }),
    ),
  ),
  current: z.union([z.literal(0), z.literal(1)]).check(z.meta({ description: '1 for the device of the presenting session' })),
});

/** A device on probation as a login answer lists it. */
export const probationDeviceItem = z.object({
  device_key: deviceKeyField(),
  device_type: z.nullable(z.int()),
  device_id: z.nullable(z.string()),
  created_date: z.int().check(z.meta({ description: 'When it was bound, UNIX seconds' })),
  probation_ends_at: z.nullable(z.int().check(z.meta({ description: 'When time settles it; null: only an approval settles it' }))),
});

export const devicesResult = z.object({
  devices: z.array(deviceListItem).check(z.meta({ description: "The user's bound devices, most recently used first" })),
});

export type DevicesResult = z.output<typeof devicesResult>;
export type ProbationDevice = z.output<typeof probationDeviceItem>;
