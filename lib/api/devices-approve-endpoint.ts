import { devicesApproveBody } from '../devices/devices-approve-input.js';
import { devicesApproveResult } from '../devices/devices-approve-result.js';
import { duration, type Endpoint } from '../http/endpoint.js';
import { keepAnswers, readCompanyAndSession, recordSessionUse } from './grant-parts.js';

export const devicesApproveEndpoint = {
  operationId: 'devicesApprove',
  method: 'POST',
  path: '/wallet/v3/auth/devices/approve',
  summary: 'Settle a device on probation',
  tag: 'auth',
  description: ({ credentialProbationHours, stepUpMaxAgeSeconds }) =>
    'A device bound by an OTP login is on probation: its PIN logins are SMS-strength. It settles by time after ' +
    `${duration(credentialProbationHours * 3600)} unless the owner logged in strongly meanwhile; then only this settles it. From a ` +
    `strong session proven under ${duration(stepUpMaxAgeSeconds)} ago (else 403 code 5 with needs "strong" or "strong_fresh"), ` +
    'the device is settled at once. An employee’s device is settled by another admin only (403 code 5). A device that is not ' +
    'the user’s: 404 code 6.',
  auth: 'required',
  body: devicesApproveBody,
  result: devicesApproveResult,
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  examples: {
    request: { device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c' },
    result: { message: 'Device approved: its PIN logins are strong', device_key: '3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c' },
  },
  // A device on probation settled by the owner's fresh strong session (contract 3.15): its two items.
  grants: {
    table: [
      keepAnswers,
      readCompanyAndSession,
      { actions: ['GetItem'], keys: ['deviceIndex'] },
      { actions: ['UpdateItem'], keys: ['deviceIndex', 'userDevice'], attributes: ['probation_since', 'probation_held'] },
      recordSessionUse,
    ],
    secret: true,
    signingKeys: 'verify',
  },
} as const satisfies Endpoint;
