// The settings that point the functions at this machine's stand-ins (DynamoDB Local, a loopback
// SNS, SQS or SSM, the SMS outbox and in-process queue, a secret file), taken from the shell for the local stages only. A
// shell still set up for local work must not point a deployed stage at them: packaging any other
// stage with one of them set refuses, naming them; on such a stage each is empty in every function's
// environment (serverless.yml), so the functions use AWS itself.

const { STAND_IN_SETTINGS } = require('./settings.cjs');

/** npm start (local), the tests (test) and npm run load (load) run serverless-offline on this machine. */
const LOCAL_STAGES = ['local', 'test', 'load'];
/** The stand-ins' settings (lib/settings.ts). */
const LOCAL_SETTINGS = STAND_IN_SETTINGS;
/**
 * What a local stage has unless the shell says otherwise: codes published in the request (SMS_DELIVERY=queue
 * queues them in the process instead), no URL of the deployed queue, which exists only in AWS, and
 * http://localhost:<PORT> as the tokens' issuer.
 */
const LOCAL_DEFAULTS = { SMS_DELIVERY: 'direct', SMS_QUEUE_URL: '', EVENTS_DLQ_URL: '' };

module.exports = async ({ resolveConfigurationProperty }) => {
  const stage = await resolveConfigurationProperty(['custom', 'stage']);
  const set = LOCAL_SETTINGS.filter((name) => (process.env[name] ?? '').trim() !== '');
  if (LOCAL_STAGES.includes(stage)) {
    // The access tokens' issuer is where serverless-offline answers, so its discovery document is found under it.
    const issuer = { TOKEN_ISSUER: process.env.TOKEN_ISSUER || `http://localhost:${process.env.PORT || 3000}` };
    // The events' bus has the deployed stack's name (no bus exists here: EVENTBRIDGE_ENDPOINT's sink takes them).
    const bus = { EVENT_BUS_NAME: `${await resolveConfigurationProperty(['service'])}-${stage}` };
    return { ...LOCAL_DEFAULTS, ...issuer, ...bus, ...Object.fromEntries(set.map((name) => [name, process.env[name]])) };
  }
  if (set.length) {
    const error = new Error(
      `stage "${stage}" takes no local settings, but ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set in this shell ` +
        `(only the stages ${LOCAL_STAGES.join(', ')} take them): unset ${set.length > 1 ? 'them' : 'it'} and package or deploy again`,
    );
    // Serverless prints the stack of an error thrown here: the message says all there is.
    error.stack = error.message;
    throw error;
  }
  return {};
};

// The names, for the tests that package a stage with none of them set (tests/setup/shared-package.ts).
module.exports.LOCAL_SETTINGS = LOCAL_SETTINGS;
