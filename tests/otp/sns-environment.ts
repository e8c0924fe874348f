import { startFakeSns } from './sns-fake.js';

// Imported first by the SNS test file: the service reads its configuration once, on import,
// so the SNS sender and endpoint must be in the environment before anything else loads.
export const sns = await startFakeSns();
Object.assign(process.env, { SMS_SENDER: 'sns', SNS_ENDPOINT: sns.endpoint, SMS_SENDER_ID: 'WALLET' });
