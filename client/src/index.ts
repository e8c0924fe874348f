// The wallet's auth client (API contract 8). For apps: createWalletAuthClient. For the wallet's
// other services: createTokenVerifier (the only part that imports jose; an app's bundler leaves it out).
export {
  type AuthHelpers,
  type BindDevice,
  createWalletAuthClient,
  type WalletAuthClient,
  type WalletAuthClientOptions,
} from './client.js';
export {
  type DeviceKey,
  type DeviceKeyStore,
  defaultKeyStore,
  indexedDbKeyStore,
  memoryKeyStore,
  pinLoginText,
} from './device-keys.js';
export { type Envelope, WalletAuthError } from './errors.js';
export { ERROR_NAMES, OPERATION_ROUTES } from './generated/api-facts.js';
export type { components, operations, paths } from './generated/openapi.js';
export {
  callOperation,
  OPERATION_HELPERS,
  type OperationCall,
  type OperationData,
  type OperationHelpers,
  type OperationId,
  type OperationInput,
} from './operations.js';
export {
  browserPasskeys,
  creationOptionsFromJSON,
  credentialToJSON,
  type PasskeyPlatform,
  requestOptionsFromJSON,
} from './passkeys.js';
export { memoryStorage, type Session, type SessionStorage } from './session-storage.js';
export {
  createTokenVerifier,
  type SessionEndedDetail,
  type TokenVerifier,
  type TokenVerifierOptions,
  type VerifiableRequest,
  type VerifiedToken,
  wwwAuthenticate,
} from './token-verifier.js';
export type { RequestOptions } from './transport.js';
