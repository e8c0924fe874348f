// Generated from docs/openapi.json by npm run openapi (openapi-typescript): do not edit.
export interface paths {
    "/wallet/v3/auth/user_register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a user
         * @description Registers a customer (user_type 2, no token needed) or an employee (user_type 1, needs an employee's token). Answers a session token (valid 30 days), the user id and the user's own referral code. phone_verification_token (the verification_token of a verified otp_type 2 code for this phone) proves the phone: the user is stored phone-verified and the proof is used up; a phone held by a user who never proved it is taken over (that user's status becomes 3 and their sessions end). A company may require the proof for customers registering themselves (code 14 without it). A customer registered with an employee’s token gets no device (device_public_key is ignored) and both PINs marked to be set: login_pin and transaction_authorization answer 403 code 5 with needs pin_setup until the user sets each by reset_pin from their own OTP login. Optional fields sent as "" or null count as absent; unknown fields are ignored. `location_poin` is accepted as an alias of `location_point`.
         */
        post: operations["userRegister"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/login_phone": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a one-time code by SMS
         * @description Sends a 6-digit code, valid 5 minutes, to the phone. otp_type: 1 login, 2 phone verification, 3 wallet top-up, 4 KYC document; 3 and 4 need the phone owner's token. A login code for a phone with no active user gets the same answer and sends nothing. Only mobile lines in the company’s countries get SMS (code 15 otherwise, nothing spent). Limits (429 with Retry-After): one send per 1 minute and 5 per hour per phone; 30 send requests per hour per source address; 20 sends per hour to one number range and 1000 per company; none to a phone with 10 wrong codes in 1 day. The address, range and company limits are defaults: a company may have its own.
         */
        post: operations["loginPhone"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/verify_otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify a one-time code
         * @description Checks a code sent by login_phone. A right login code (otp_type 1) answers a session, like registration, and marks the user phone-verified; other types answer verified: 1 and a verification_token, the proof that this phone received the code (single use, valid 15 minutes), which registration takes as phone_verification_token. A phone-verification code verified with the token of the user holding the phone marks that user phone-verified. A code is single use and dies after 5 wrong tries; a phone locks (code 11) after 10 wrong codes in 1 day, whatever the codes; 30 attempts per 5 minutes per source address (429; a company may have its own).
         */
        post: operations["verifyOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/login_pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in by PIN on a bound device
         * @description Logs in on a device bound by user_register or verify_otp (device_public_key), without SMS. The device signs "login_pin\n<company id, lowercase>\n<device_key>\n<timestamp>\n<nonce>" (ECDSA P-256 / SHA-256, base64 DER or raw r||s). An unknown or removed device, a bad signature, a timestamp more than 300 s from the server's clock or a nonce used before on the device: 401, and the PIN is not looked at. A wrong PIN: 400 code 17 with attempts_left; after 5 wrong login PINs in a row (over all the user's devices): 400 code 18 until an OTP login or reset_pin. The session is bound to the device: removing the device ends it.
         */
        post: operations["loginPin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the user's bound devices
         * @description The token user's bound devices, most recently used first, with their labels (never proof), when each was bound and last used, and current: 1 for the device of the presenting session. At most 10 per user: binding one more removes the least recently used.
         */
        get: operations["devices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/devices/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove a bound device
         * @description Ends one of the token user's device bindings and every session bound to it (a PIN login on it racing the removal gets no session). Answers how many sessions ended. A device that is not the user’s: 404.
         */
        post: operations["devicesRemove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/devices/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Settle a device on probation
         * @description A device bound by an OTP login is on probation: its PIN logins are SMS-strength. It settles by time after 1 day unless the owner logged in strongly meanwhile; then only this settles it. From a strong session proven under 10 minutes ago (else 403 code 5 with needs "strong" or "strong_fresh"), the device is settled at once. An employee’s device is settled by another admin only (403 code 5). A device that is not the user’s: 404 code 6.
         */
        post: operations["devicesApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/change_pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change a PIN, knowing the current one
         * @description Changes the login PIN (pin_type 1) or the transaction PIN (2). A wrong current_pin is 400 code 17 with attempts_left and counts toward that PIN's lock (5 in a row: code 18). new_pin follows the rules of registration and differs from current_pin. Every other session of the user ends; a PIN login that compared the old PIN gets no session.
         */
        post: operations["changePin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/reset_pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset a forgotten or locked PIN, proving the phone
         * @description Sets a new login PIN (pin_type 1) or transaction PIN (2) without the current one, on proof of the phone: a phone_verification_token (otp_type 2) verified while presenting this user’s token, or a presenting session that began by OTP login less than 10 minutes ago. Without either: 400 code 14. Clears that PIN's count and lock; every other session of the user ends.
         */
        post: operations["resetPin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/step_up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Prove a strong session again: the device and the PIN
         * @description A strong session proven more than 600 s ago (a PIN login on a settled device, a passkey) answers 403 code 5 with needs "strong_fresh" to a PIN reset or change, a phone change, a deletion, the removal of a settled device, passkeys, not_me and admin-only routes. Its own device proves itself again, as login_pin does, signing "step_up\n<company id, lowercase>\n<device_key>\n<timestamp>\n<nonce>" (a timestamp within 300 s, a nonce used once per device), with the login PIN counted on the device’s tally. The session keeps its sid and strength; the answer is a new access token whose auth_time is now (the refresh token stays). Another device than the session’s, a bad signature, a replayed nonce: 401 code 4, nothing counted. Or, instead of the device and PIN, `passkey`: an assertion of one of the user’s passkeys for a challenge of passkeys/login/options (checked as a passkey login; 401 code 4). An SMS-strength session: 403 code 5 with needs "strong".
         */
        post: operations["stepUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/passkeys/register/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Options to create a passkey
         * @description From a strong session proven under STEP_UP_MAX_AGE_SECONDS ago (else 403 code 5, needs strong or strong_fresh): the creation options for navigator.credentials.create (PublicKeyCredential.parseCreationOptionsFromJSON) or a React Native passkey module, their challenge single-use for 300 s and bound to this session. User verification required, resident key preferred, ES256 and RS256; at most 10 passkeys per user (409 code 22). A company without webauthn settings: 400 code 1 naming webauthn.
         */
        post: operations["passkeysRegisterOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/passkeys/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a passkey
         * @description The response of the creation (PublicKeyCredential.toJSON(), or a React Native module’s JSON) with an optional name, from the same fresh strong session that asked for the options. Verified by @simplewebauthn/server: the challenge (single-use), origin, rp_id, user verification. A credential id already registered in the company: 409 code 7. A malformed or wrong response: 400 code 1 naming the field, nothing written. Notice 13 and event passkey.added.
         */
        post: operations["passkeysRegister"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the user’s passkeys
         * @description The token user’s passkeys, newest first: passkey_id, name, created_date, last_used_date, backed_up (synced). Never a key or a credential id.
         */
        get: operations["passkeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/passkeys/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove a passkey
         * @description From a strong session proven under STEP_UP_MAX_AGE_SECONDS ago: removes one of the user’s passkeys and ends every session it began (answers how many). Not the user’s: 404. Notice 14 and event passkey.removed.
         */
        post: operations["passkeysRemove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/passkeys/login/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Options to log in with a passkey
         * @description No token. The request options for navigator.credentials.get, their challenge single-use for 300 s. Without a phone: a discoverable login (the platform offers its passkeys for rp_id). With dial_code and phone_number (and user_type, default 2): allowCredentials, the same shape for every phone (ids derived by HMAC for a phone with no passkey), so the answer never says whether an account exists.
         */
        post: operations["passkeysLoginOptions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/passkeys/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with a passkey
         * @description No token. The assertion (PublicKeyCredential.toJSON()) for a challenge of login/options: verified by @simplewebauthn/server (challenge single-use, origin, rp_id, user verification required, the signature). The signature counter may stay 0 (synced passkeys); one that went back is refused and the passkey marked (event passkey.cloned). Any refusal: 401 code 4, no account named, nothing written. A success answers as login_pin on a settled device: a strong session (amr ["hwk","user"], acr strong), pending_changes and probation_devices; not_me: 1 runs "Not me" with it. Removing the passkey ends the session.
         */
        post: operations["passkeysLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/token/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Spend a refresh token for a new access token and refresh token
         * @description Answers a new access token (valid 15 minutes) and a new refresh token; the one sent is spent. A refresh token lives as its session does (30 days at most, ended by 14 days unused, by logout, disable or device removal). Unknown, expired or ended: 401 code 4. A spent refresh token sent again ends the whole session and writes a security notification (event 7): 401 code 4. Send each refresh with an Idempotency-Key: sent again with it (the answer was lost), it answers the same pair and is not a reuse.
         */
        post: operations["tokenRefresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End sessions: this one, every other one, or all
         * @description Ends sessions of the token’s user. scope "current" (the default, also when the body is empty) ends the presented token; "others" every other session of the user; "all" every session, this one included. Answers how many sessions ended. An ended token answers 401 on its next call.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/reward_promotion/referral_program": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's referral notifications
         * @description A user's referral notifications, newest first, with the user's referral code and count. user_id comes from the query string, else a JSON body, else the token's own user; only an employee of the company may read another user's list. Page with limit and cursor.
         */
        get: operations["referralProgram"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's notifications with the unread count
         * @description The token user's notifications of every type, newest first: notification_type 1 referral (event 1 a referred user signed up), 2 security (event 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked). unread=1 lists only unread ones. unread_count is exact, whatever the page holds. Page with limit and cursor.
         */
        get: operations["notifications"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/notifications/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark the caller's notifications read
         * @description Marks notifications of the token's user read: {"ids": [1 to 100 ids]}, or {"all": 1} for every unread one, with "before" (UNIX seconds) for those created at or before it. Ids that are not the user's, or already read, change nothing, so a repeat is harmless. Answers how many changed and the unread count after.
         */
        post: operations["notificationsRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/auth/transaction_authorization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve one exact payment with the transaction PIN
         * @description The transaction PIN approves one payment: amount (a decimal string; "10.5" and "10.50" are one amount), currency, payee and the payment’s own reference. The answer’s authorization_token is for the payment service, which redeems it once through the Lambda API (redeemAuthorization, docs/redeem-authorization.schema.json) within 2 minutes, only for exactly these values. A wrong PIN is code 17 with attempts_left; after 5 in a row the transaction PIN is locked (code 18) until reset_pin with pin_type 2. A reference the user already has a live authorization for is 400, code 1, on reference.
         */
        post: operations["transactionAuthorization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the wallet holds about the token’s user
         * @description The token user’s profile: names, email, phone and whether it is proven, birth date, image, KYC state, country, location, referral code, status and dates. Never a password, PIN, hash or key. Beside it, pending_phone_change: the phone change that waits (change_id, effective_at, the new number’s last 4 digits), or null.
         */
        get: operations["userProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/profile/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the token user’s names, email, image, birth date or location
         * @description Changes any of first_name, last_name, email, image, birth_date and location_point, with the rules of user_register. A new email is claimed and the old one freed in the same write: an email another user of the company holds (same user_type) answers 409 code 7. phone_number, dial_code, user_type, status_id, kyc_status, kyc_process_status, referral_code, country_id cannot be changed here: 400 code 1 naming the field (a phone moves by /wallet/v3/user/phone/change). Answers the profile as it now is. From a strong session every field changes at once. From an SMS-strength session (registration, OTP login, a PIN login on a device on probation) a change of first_name, last_name, birth_date or email is a held change (kind profile): the answer adds pending, change_id and effective_at, the number is warned by SMS, it shows in pending_changes and any session of the user may cancel it; a new one replaces it (never one a strong session asked for: 403 code 5); once due it lands at the next GET /wallet/v3/user/profile (an email another user claimed meanwhile voids it). image and location_point change at once, and so does a field given as it already is.
         */
        post: operations["userProfileUpdate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything the wallet holds about the token’s user
         * @description One JSON document of what is held about the token user (right of access): the profile, the referral code and count, bound devices (labels and dates), sessions (how and when each began, last use, end; never a token), every notification and, among them, the security events, and what the company’s staff did on the account (action, employee, date; searches and views included). Never a token, hash, PIN, key or code. An operator gets the same document with npm run user:export. A strong session gets it at once; from an SMS-strength session the export is a held change (kind export): the first request answers pending, change_id and effective_at, the number is warned, and asked again meanwhile the same change is answered; from effective_at on, for 7 days, any session of the user gets the document.
         */
        get: operations["userExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/phone/change": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move the token user to a new, proven phone number
         * @description Moves the account to a new number, on two proofs: a phone_verification_token (otp_type 2) for the NEW number, verified while presenting this user’s token, and a presenting session that began by OTP or PIN login less than 10 minutes ago. Without either, or with a proof that is unknown, used, expired, for another number or got without this user’s token: 400 code 14. A session begun by PIN login (a bound device and the PIN) moves the account at once: a number another active user holds is 409 code 7, unless that user never proved it (then it is reclaimed from them, as a registration would); in one write the new number is claimed, the old one freed, phone_verified becomes 1, a security notification (event 6) is written and every other session of the user ends; the old number is then told by SMS that the account moved (a text with no code), and gets no login code any more. A session begun by OTP login, which whoever took over the old number by a SIM swap also passes, must send login_pin too (absent: 400 code 14; wrong: 400 code 17, counted toward its lock; locked: 18), and the change then waits PHONE_CHANGE_HOLD_HOURS: the answer is pending 1, change_id and effective_at; the proof is used up, a notification (event 9) is written, the old number is told by SMS, and user.phone_change_pending follows. From effective_at, and for 7 days, the first OTP login (login_phone and verify_otp, otp_type 1) to the new number completes it as the immediate change does, and answers the session; until then any session may cancel it (phone/change/cancel). One pending change per user (a new request replaces it) and per number: a number held, or awaited by another user’s pending change, is 409 code 7.
         */
        post: operations["userPhoneChange"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/phone/change/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel one of the token user’s pending changes (the phone change’s route of 3.11)
         * @description The route of 3.11, kept: it cancels a pending change of any kind, as POST /wallet/v3/user/changes/cancel does. Any live session of the user may cancel, however it began, but for a recovery started by support (only a strong session on a credential older than the recovery: else 403 code 5 with needs "strong"). A security notification (event 10) is written and the events user.change_cancelled (and, for a phone change, user.phone_change_cancelled) follow. A change_id that is not the user’s pending change (unknown, another user’s, replaced by a newer request, already cancelled, done, or void): 404 code 6 naming change_id.
         */
        post: operations["userPhoneChangeCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/changes/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel one of the token user’s pending changes
         * @description Cancels a change that waits (a new PIN, a new number, the removal of a settled device...: pending_changes of the profile). A change asked for from a session an SMS code alone could have opened waits 24 hours, and any live session of the user may cancel it, however it began, so the owner whose SIM was swapped stops it from the app. A recovery started by support is cancelled only by a strong session on a credential older than the recovery (else 403 code 5 with needs "strong") or by support. A security notification (event 10) is written and the event user.change_cancelled follows. A change_id that is not a pending change of the user (unknown, another user’s, replaced, already cancelled, done, or void): 404 code 6 naming change_id.
         */
        post: operations["userChangesCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/security/not_me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * "Not me": undo what someone holding the number did
         * @description The owner’s way back from a SIM swap: from a strong session (a PIN login on a settled device, or a passkey) proven under 10 minutes ago, it cancels every pending change (but a recovery started by support), removes every device on probation with its sessions, removes passkeys registered less than 1 day ago, and ends every other session of the user. Answers what it undid. Notification event 12. An SMS-strength session: 403 code 5 with needs "strong"; an older strong one: needs "strong_fresh".
         */
        post: operations["userSecurityNotMe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/user/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete the token user’s account (erased after ACCOUNT_ERASE_AFTER_DAYS)
         * @description Deletes the token user’s account. From a strong session proven under STEP_UP_MAX_AGE_SECONDS ago (a PIN login on a settled device, a passkey, or a step-up) it is deleted at once; an older strong session is refused (403 code 5, data.needs strong_fresh: step up). From an SMS-strength session (registration, OTP login, a PIN login on a device on probation) begun by a login under 10 minutes ago (else 400 code 14) the deletion is a held change (kind delete): it answers pending, change_id and effective_at, the number is warned by SMS, it shows in pending_changes and any session of the user may cancel it (user/changes/cancel); once due it lands at the user’s next profile read or PIN login (401 there), and the phone and email stay claimed until erasure. An employee’s deletion is never held: it needs a fresh strong session. A deletion in place: the user’s status becomes 4 (deletion requested), every session ends (their access and refresh tokens answer 401), every device is removed, every other pending change is void, and (deleted at once) the phone and email are free for a new registration; no login code goes to the phone any more. At erase_after the account is erased: names, email, phone, birth date, image, location, devices, notifications, hashes and PINs are deleted, and a record with the user id, type, status 5 and dates is all that remains. Until then an operator may restore it. An employee who is their company’s last active admin is refused (409 code 21): another admin first.
         */
        post: operations["userDelete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/employees/role": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give an employee a back-office role, or take it away (admin)
         * @description An admin of the company sets the role of one of its active employees: "support" (search, view and act on users), "admin" (also enable users, approve recoveries and grants, set roles and the company’s settings) or "none". A role that gives power (none to support, none or support to admin) takes two admins: it answers pending 1 with a grant_id and approve_by, and the employee has it once another admin approves it with employees/approve within 72 hours. A role that takes power away (to none, admin to support) is set at once (pending 0). The company’s last active admin keeps the role (409 code 21). Recorded as role_grant or role. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), proven (a login or step-up) under 10 minutes ago (else data.needs "strong_fresh"), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminEmployeeRole"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/employees/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a role grant another admin asked for (admin)
         * @description Another admin than the one who asked approves a grant of employees/role (support or admin): the employee has the role from now on. Refused (403 code 5) to the admin who asked, to an admin who registered the employee who asked or the one the grant is for, or asked for the role of the one who asked (or was made by them), and while the approver has been admin, or the one who asked registered or given their role, less than 3 days. A grant unknown, of another company, approved already or void (72 hours unapproved): 404 code 6; for an employee no longer active or whose role changed since: 409 code 23. Recorded as role_approve. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), proven (a login or step-up) under 10 minutes ago (else data.needs "strong_fresh"), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminEmployeesApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/employees/devices/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Settle an employee’s device (another admin)
         * @description An employee’s device never settles by time: another admin settles it here (user_id, device_key, reason), and the employee’s PIN logins on it are strong from then on. Refused (403 code 5) to the employee themself, to an admin who has been admin less than 3 days, who registered the employee or asked for their role, or whom the employee registered or made admin. A device not of an active employee of the company: 404 code 6. One already settled answers as approved and records nothing. Recorded as device_approve. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), proven (a login or step-up) under 10 minutes ago (else data.needs "strong_fresh"), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminEmployeesDevicesApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/approvals/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What awaits a second admin’s approval (admin)
         * @description The grants (a role asked through employees/role, a change of the security settings asked through company/update) and the recoveries (users/phone/recover) of the company that await another admin’s approval, oldest first, each within its 72 hours; one cancelled, approved, replaced or void since is left out. Each names who asked: that employee cannot approve it. Recorded as approvals_list. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminApprovalsList"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Find the user an exact key names (support, admin)
         * @description Exactly one of phone (E.164), email, user_id or referral_code, and user_type (default 2; a user_id names a user of either type). Answers an empty list or the one user, with the phone and email masked. Exact matches only: no listing, no prefix. At most 120 searches, views and recovery starts per employee per clock hour (429 code 12). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersSearch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/phone/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start the recovery of a user who lost the number and every device (support, admin)
         * @description Starts a pending phone change (via support) to the number the user can now receive codes on: a mobile number in the company’s countries (400 code 15), held by no one (409 code 7), not the account’s own. It does not run until another admin approves it (admin/users/phone/approve) before approve_by, 72 hours on; nothing is sent yet. One pending change per user: it replaces the user’s own. The user must be active (409 code 23 naming user_id). Staff act on other users only, and only an admin on an employee (403 code 5). A start is a lookup: counted with the searches and views (at most 120 per employee per clock hour, then 429 code 12), and recorded whether it starts or is refused (with why and the number’s last 4 digits); notice 8 is written in the user’s list when it starts. Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersPhoneRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/phone/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a recovery another employee started (admin)
         * @description An admin approves a recovery another employee started: from now it runs as a pending phone change: due 24 hours from now (effective_at), the old number warned by SMS, notice 9 in the user’s list, the event user.phone_change_pending (via support), any live session of the user able to cancel it, and only a login by a code sent to the new number completing it within 7 days. At completion the account loses every bound device and every session (session.ended reason recovered). Refused (403 code 5) to the employee who started it, to an admin who registered them or asked for their role (or was made by them), and while the approver has been admin, or the starter registered or given their role, less than 3 days. A change_id that is not a recovery awaiting approval (approved, cancelled, or void 72 hours after its start): 404 code 6; one started by an employee no longer active staff: 409 code 23. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), proven (a login or step-up) under 10 minutes ago (else data.needs "strong_fresh"), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersPhoneApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/phone/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a user’s pending phone change or recovery (support, admin)
         * @description Cancels the user’s live pending phone change named by change_id: a recovery (awaiting approval or running) or the user’s own change, such as one a caller reports as not theirs. Notices 10 and 8 in the user’s list, the event user.phone_change_cancelled if it was running. Not the user’s live change: 404 code 6 naming change_id. Staff act on other users only, and only an admin on an employee (403 code 5). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersPhoneCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/sessions/end": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End one session of a user, or every one (support, admin)
         * @description Ends the session `sid` names, or without it every session of the user: their tokens answer 401 from then on, and each end is published as session.ended with reason "support". The user gets a security notice (event 8, changed by support). An unknown or already ended sid, or a user who is not the company’s: 404 code 6. Staff act on other users only, and only an admin on an employee (403 code 5). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersSessionsEnd"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a user (support, admin) or enable a disabled one (admin)
         * @description "disabled": an active user becomes status_id 2 and every session of theirs ends (session.ended reason "disabled"); no login code or session is given to them until enabled. The company’s last active admin is not disabled (409 code 21). "active" (admin only, on a fresh strong session; support: 403 code 5): a disabled user becomes 1 again (the event user.enabled). No other status is set here: a user who is not active (to disable) or not disabled (to enable), such as one deleted, is 409 code 23. The user gets a security notice (event 8, changed by support). Staff act on other users only, and only an admin on an employee (403 code 5). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record. To enable: the admin role, the session proven under 10 minutes ago (else data.needs "strong_fresh").
         */
        post: operations["adminUsersStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/devices/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove a bound device of a user (support, admin)
         * @description As the user’s own devices/remove: ends the binding and every session bound to it (a PIN login on it racing the removal gets no session); answers how many sessions ended. The user gets a security notice (event 8, changed by support). A device that is not that user’s, or a user who is not the company’s: 404 code 6. Staff act on other users only, and only an admin on an employee (403 code 5). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersDevicesRemove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/passkeys/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove a passkey of a user (support, admin)
         * @description As the user’s own passkeys/remove: the passkey goes and every session it began ends; answers how many. The user gets notices 14 (passkey removed) and 8 (changed by support); the action is recorded as passkey_remove with its reason. A passkey that is not that user’s, or a user who is not the company’s: 404 code 6. Staff act on other users only, and only an admin on an employee (403 code 5). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersPasskeysRemove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Undo a user’s deletion before its erasure (support, admin)
         * @description As npm run user:restore: a user who deleted the account and is not erased yet is active again, with their phone and email taken back (event user.restored); their sessions and devices stay ended (a restored admin is an active admin again). A phone or email someone registered since: 409 code 7 naming "phone" or "email". A user not awaiting erasure, or past its erase_after (even if the eraser has not run yet): 409 code 23. The user gets a security notice (event 8, changed by support). Staff act on other users only, and only an admin on an employee (403 code 5). Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersRestore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/users/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * See one user’s account (support, admin)
         * @description One user of the company by user_id: the profile with the phone and email masked as a search shows them (an admin sending reveal: 1, on a session proven under 10 minutes ago, sees dial_code, phone_number and email whole; support sending it: 403 code 5), the bound devices, the live sessions (how and when each began, last use, expiry, sid; never a token), where each PIN stands (set, locked, attempts_left), the pending phone change, the deletion under way, the referral count, the latest 20 security notifications and the latest 50 back-office actions on the user. Never a hash, PIN, code, token or key. A user_id the company does not hold: 404 code 6. Counted with the searches: at most 120 searches and views per employee per clock hour (429 code 12), an unknown id included. Needs an employee token with a role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminUsersView"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/company/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * See the company’s settings (admin)
         * @description The company’s settings (API contract 6 and 7) as `npm run company:update` prints them, in the shape company/update takes: the name, require_verified_phone, the countries SMS may go to, the code texts by language with the default language, the app hash and the WebOTP domain, the security warnings by warning (and the phone change’s as phone_change_texts), and each limit in force (the company’s own or the configured default, marked which). With each text’s size in SMS as sent (sms_sizes, phone_change_sizes), warnings worth a look, and the rules company/update applies (rules). As stored now: other functions keep a company for up to 30 seconds. Not the status: a disabled company answers 404 code 3 to every call. Never a secret. Recorded as company_view. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminCompanyView"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/company/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the company’s settings (admin)
         * @description Changes what `npm run company:update` changes, by its rules: name, require_verified_phone (0 or 1), sms_countries (ISO 3166 alpha-2 codes or "all"), sms_text (templates by language with {code}, {brand} and {minutes}, null removing one; default_language, app_hash of 11 characters and webotp_domain, null removing each), warning_texts (the security warnings’ SMS by warning: a held change’s kind, phone, login_pin, transaction_pin, device_remove, delete, profile or export, or new_device; then by language, {brand} and no {code} or run of 4 digits; null removes one), phone_change_texts (warning_texts.phone by its first name: a language given in both is refused) and limits (each a whole number, or null for the configured default). Absent fields stay as they are; a top-level null or "" counts as absent, so removals go inside sms_text, warning_texts, phone_change_texts and limits. Every code and warning text, with the name, must fit 2 SMS: a refused one is 400 code 1 with every problem in data.errors and the sizes measured in data.sms_sizes, data.warning_sizes and data.phone_change_sizes, and nothing changes. Not the status: an admin would lock the whole company out, and only an operator could undo it. A change of a security setting (sms_text, sms_countries, warning_texts, phone_change_texts, webauthn, require_dpop 0 or 1, sms_payment_limit by currency or "none") takes two admins: checked now, it answers pending 1 with a grant_id and the settings as they still are, and is made when another admin approves it with company/approve within 72 hours (the whole change waits, other fields included). Any other change answers pending 0 and the settings as company/view does; every function sees them within 30 seconds. Recorded as company_update, or company_grant when it waits. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), proven (a login or step-up) under 10 minutes ago (else data.needs "strong_fresh"), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminCompanyUpdate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallet/v3/admin/company/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a change of the security settings another admin asked for (admin)
         * @description Another admin than the one who asked applies a change of the company’s security settings (sms_text, sms_countries, phone_change_texts) asked through company/update, which answered pending 1 and this grant_id. The change is checked again against the company as it is now (a text past 2 SMS: 400 code 1, the grant still waits), then applied; every function has it within 30 seconds. Refused (403 code 5) to the admin who asked, to one who registered them or asked for their role (or was made by them), and while the approver has been admin, or the one who asked registered or given their role, less than 3 days. A grant unknown, of another company, approved already or void (72 hours unapproved): 404 code 6. Recorded as company_approve. Needs an employee token with the admin role (else 403 code 5) on a strong session, a PIN login on a settled device or a passkey (else 403 code 5 with data.needs "strong"), begun under 12 hours ago (else 400 code 14), proven (a login or step-up) under 10 minutes ago (else data.needs "strong_fresh"), and a reason (1 to 200 characters, such as a ticket number), kept in the record.
         */
        post: operations["adminCompanyApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/openid-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The issuer of access tokens and where its keys are
         * @description The discovery document of the access tokens’ issuer (`iss`): API Gateway’s JWT authorizer and OIDC-aware JOSE libraries read `jwks_uri` from it. Needs no CompanyID.
         */
        get: operations["openidConfiguration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The public keys access tokens are signed with
         * @description A JWK Set: the key that signs now, a key rotated in (listed before it signs), and an older one while a token it signed may still be valid (up to 15 minutes after it stopped signing). Needs no CompanyID.
         */
        get: operations["jwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        FieldError: {
            code: number;
            /** @description The request field (or header) at fault */
            field: string;
            /** @description What is wrong, for a developer */
            detail: string;
        };
        FailureEnvelope: {
            /** @constant */
            success: 0;
            error: (1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23 | 500)[];
            data: {
                /** @enum {unknown} */
                message: "BAD_REQUEST" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "TOO_MANY_REQUESTS" | "INTERNAL_SERVER_ERROR" | "SERVICE_UNAVAILABLE";
                errors?: components["schemas"]["FieldError"][];
                /** @description With code 17: wrong PINs left before the PIN locks */
                attempts_left?: number;
                /**
                 * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                 * @enum {unknown}
                 */
                needs?: "strong" | "strong_fresh" | "pin_setup";
                /** @description With a refused SMS text: each code text’s size as measured, by language ("built-in": the English text) */
                sms_sizes?: {
                    [key: string]: {
                        segments: number;
                        /** @enum {unknown} */
                        encoding: "GSM-7" | "UCS-2";
                        units: number;
                    };
                };
                /** @description With a refused SMS text: each phone-change warning’s size as measured, by language */
                phone_change_sizes?: {
                    [key: string]: {
                        segments: number;
                        /** @enum {unknown} */
                        encoding: "GSM-7" | "UCS-2";
                        units: number;
                    };
                };
                /** @description With a refused SMS text: each security warning’s size as measured, by warning (a held change’s kind or new_device), then by language */
                warning_sizes?: {
                    [key: string]: {
                        [key: string]: {
                            segments: number;
                            /** @enum {unknown} */
                            encoding: "GSM-7" | "UCS-2";
                            units: number;
                        };
                    };
                };
            };
        };
    };
    responses: never;
    parameters: {
        /** @description The company, 32 hexadecimal characters */
        CompanyID: string;
        /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    userRegister: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "dial_code": "+1",
                 *       "phone_number": "2025550143",
                 *       "user_type": 2,
                 *       "first_name": "Ada",
                 *       "last_name": "Lovelace",
                 *       "account_number_prefix": "AC",
                 *       "password": "correct horse battery",
                 *       "email": "ada@example.com",
                 *       "login_pin": "2580",
                 *       "transaction_pin": "1397",
                 *       "status_id": 1,
                 *       "birth_date": 631152000000,
                 *       "image": "https://example.com/ada.png",
                 *       "kyc_status": 1,
                 *       "country_id": "US",
                 *       "kyc_process_status": "1",
                 *       "location_point": "23.0225,72.5714",
                 *       "device_type": 1,
                 *       "device_id": "device-1",
                 *       "parent_user_id": "",
                 *       "device_unique_id": "unique-1",
                 *       "referral_code": "",
                 *       "cretaed_by": ""
                 *     }
                 */
                "application/json": {
                    dial_code: string;
                    phone_number: string;
                    user_type: 1 | 2;
                    first_name: string;
                    last_name: string;
                    password: string;
                    login_pin: string;
                    transaction_pin: string;
                    email?: string | "" | null;
                    account_number_prefix?: string | "" | null;
                    status_id?: number | "" | null;
                    birth_date?: number | "" | null;
                    image?: string | "" | null;
                    kyc_status?: (1 | 2) | "" | null;
                    country_id?: string | "" | null;
                    kyc_process_status?: (number | string) | "" | null;
                    location_point?: string | "" | null;
                    /** @description Binds this device: a P-256 public key from the platform keystore, base64 of its SPKI DER encoding. The answer then holds device_key. */
                    device_public_key?: string | "" | null;
                    device_type?: number | "" | null;
                    device_id?: string | "" | null;
                    device_unique_id?: string | "" | null;
                    parent_user_id?: string | "" | null;
                    referral_code?: string | "" | null;
                    /** @description The verification_token of a verified otp_type 2 code for this phone and user_type (verify_otp) */
                    phone_verification_token?: string | "" | null;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason?: string | "" | null;
                    /** @description Accepted and ignored: set from the token, never from the body */
                    cretaed_by?: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "User registered successfully",
                     *         "token": {
                     *           "type": "Token",
                     *           "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g"
                     *         },
                     *         "refresh_token": "5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8",
                     *         "expires_in": 900,
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *         "referral_code": "94MQE4QQ"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Send back as `Authorization: Token <token>` (or `Bearer <token>`) */
                            token: {
                                /**
                                 * @description The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)
                                 * @enum {string}
                                 */
                                type: "Token" | "DPoP";
                                /** @description An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key */
                                token: string;
                            };
                            /** @description Opaque; spent by POST /wallet/v3/auth/token/refresh for a new pair. Presented again after it was spent, it ends the session */
                            refresh_token: string;
                            /** @description Seconds until the access token expires */
                            expires_in: number;
                            /** @description 32 lower-case hex characters */
                            user_id: string;
                            /** @description With device_public_key: the handle of the bound device (32 lower-case hex), for login_pin. Bound by an OTP login, a new device is on probation (contract 3.15) */
                            device_key?: string;
                            /** @description An OTP login’s device_public_key not bound: every device slot holds a settled device, and a binding never removes one (contract 3.15). The login itself succeeded */
                            device_refused?: {
                                /**
                                 * @description DEVICE_LIMIT (409)
                                 * @constant
                                 */
                                code: 22;
                                detail: string;
                            };
                            /** @description The new user's own referral code, unique in the company */
                            referral_code: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 8 INVALID_REFERRAL_CODE, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 8 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 7 ALREADY_REGISTERED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 7)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    loginPhone: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "dial_code": "+1",
                 *       "phone_number": "2025550143",
                 *       "user_type": 2,
                 *       "otp_type": 1
                 *     }
                 */
                "application/json": {
                    dial_code: string;
                    phone_number: string;
                    user_type: 1 | 2;
                    otp_type: 1 | 2 | 3 | 4;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "OTP sent to your mobile number",
                     *         "expires_in": 300
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Seconds the code stays valid */
                            expires_in: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 15 SMS_DESTINATION_NOT_ALLOWED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 15)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description TOO_MANY_REQUESTS: 12 TOO_MANY_REQUESTS */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 12[];
                        data: {
                            /** @constant */
                            message: "TOO_MANY_REQUESTS";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    verifyOtp: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "dial_code": "+1",
                 *       "phone_number": "2025550143",
                 *       "user_type": 2,
                 *       "otp_type": 1,
                 *       "otp": "483920"
                 *     }
                 */
                "application/json": {
                    dial_code: string;
                    phone_number: string;
                    user_type: 1 | 2;
                    otp_type: 1 | 2 | 3 | 4;
                    otp: string;
                    /** @description Binds this device: a P-256 public key from the platform keystore, base64 of its SPKI DER encoding. The answer then holds device_key. */
                    device_public_key?: string | "" | null;
                    device_type?: number | "" | null;
                    device_id?: string | "" | null;
                    device_unique_id?: string | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Logged in successfully",
                     *         "token": {
                     *           "type": "Token",
                     *           "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g"
                     *         },
                     *         "refresh_token": "5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8",
                     *         "expires_in": 900,
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Send back as `Authorization: Token <token>` (or `Bearer <token>`) */
                            token: {
                                /**
                                 * @description The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)
                                 * @enum {string}
                                 */
                                type: "Token" | "DPoP";
                                /** @description An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key */
                                token: string;
                            };
                            /** @description Opaque; spent by POST /wallet/v3/auth/token/refresh for a new pair. Presented again after it was spent, it ends the session */
                            refresh_token: string;
                            /** @description Seconds until the access token expires */
                            expires_in: number;
                            /** @description 32 lower-case hex characters */
                            user_id: string;
                            /** @description With device_public_key: the handle of the bound device (32 lower-case hex), for login_pin. Bound by an OTP login, a new device is on probation (contract 3.15) */
                            device_key?: string;
                            /** @description An OTP login’s device_public_key not bound: every device slot holds a settled device, and a binding never removes one (contract 3.15). The login itself succeeded */
                            device_refused?: {
                                /**
                                 * @description DEVICE_LIMIT (409)
                                 * @constant
                                 */
                                code: 22;
                                detail: string;
                            };
                        } | {
                            message: string;
                            /** @constant */
                            verified: 1;
                            /** @description Proof that this phone received the code: opaque, single use, short-lived, bound to the company, phone, user_type and otp_type (and for 3 and 4 to the token’s user). Send it as phone_verification_token when registering (otp_type 2). */
                            verification_token: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 9 OTP_INVALID, 10 OTP_EXPIRED, 11 OTP_ATTEMPTS_EXCEEDED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 9 | 10 | 11)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description TOO_MANY_REQUESTS: 12 TOO_MANY_REQUESTS */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 12[];
                        data: {
                            /** @constant */
                            message: "TOO_MANY_REQUESTS";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    loginPin: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                 *       "login_pin": "2580",
                 *       "timestamp": 1767225600,
                 *       "nonce": "b3K9xQ2mV7pL1sT8",
                 *       "signature": "MEUCIQDp1x2Rz9mK8nB3vC5tY7uW0qL4sE6hJ2gF1aD9cX3bZwIgQ5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5bN8mQ1wE4rT="
                 *     }
                 */
                "application/json": {
                    /** @description The device_key a binding answered (32 hex) */
                    device_key: string;
                    login_pin: string;
                    /** @description UNIX seconds, signed; within 300 s of the server clock */
                    timestamp: number;
                    /** @description Used once per device */
                    nonce: string;
                    /** @description ECDSA P-256 / SHA-256 by the device key, base64 (DER or raw r||s), over the UTF-8 text "login_pin\n<company id, lowercase>\n<device_key>\n<timestamp>\n<nonce>" */
                    signature: string;
                    /** @description 1: "Not me" in the same transaction as the session, on a settled device (contract 3.15): every pending change cancelled, every device on probation removed, every other session ended */
                    not_me?: 1 | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Logged in successfully",
                     *         "token": {
                     *           "type": "Token",
                     *           "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g"
                     *         },
                     *         "refresh_token": "5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8",
                     *         "expires_in": 900,
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Send back as `Authorization: Token <token>` (or `Bearer <token>`) */
                            token: {
                                /**
                                 * @description The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)
                                 * @enum {string}
                                 */
                                type: "Token" | "DPoP";
                                /** @description An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key */
                                token: string;
                            };
                            /** @description Opaque; spent by POST /wallet/v3/auth/token/refresh for a new pair. Presented again after it was spent, it ends the session */
                            refresh_token: string;
                            /** @description Seconds until the access token expires */
                            expires_in: number;
                            /** @description 32 lower-case hex characters */
                            user_id: string;
                            /** @description With device_public_key: the handle of the bound device (32 lower-case hex), for login_pin. Bound by an OTP login, a new device is on probation (contract 3.15) */
                            device_key?: string;
                            /** @description An OTP login’s device_public_key not bound: every device slot holds a settled device, and a binding never removes one (contract 3.15). The login itself succeeded */
                            device_refused?: {
                                /**
                                 * @description DEVICE_LIMIT (409)
                                 * @constant
                                 */
                                code: 22;
                                detail: string;
                            };
                            /** @description Changes asked for from a session an SMS code alone could have opened: each waits PHONE_CHANGE_HOLD_HOURS, and any session of the user may cancel it (POST /wallet/v3/user/changes/cancel) */
                            pending_changes: {
                                change_id: string;
                                /**
                                 * @description phone: a new number; login_pin or transaction_pin: a new PIN (reset_pin or change_pin); device_remove: a settled device removed; delete, profile, export: the account deleted, its names, birth date or email changed, its export delivered
                                 * @enum {string}
                                 */
                                kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                                /** @description UNIX seconds from which it takes effect unless cancelled */
                                effective_at: number;
                                /**
                                 * @description who asked: the user, or support (a recovery)
                                 * @enum {string}
                                 */
                                via: "user" | "support";
                                /** @description a phone change’s new number, its last 4 digits */
                                phone_last4?: string;
                                /** @description a device removal’s device */
                                device_key?: string;
                            }[];
                            /** @description Devices bound by an OTP login and still on probation: their PIN logins are SMS-strength. From a strong session, approve one (POST /wallet/v3/auth/devices/approve) or remove it; "Not me" (not_me) removes them all */
                            probation_devices: {
                                /** @description The handle login_pin and devices/remove take */
                                device_key: string;
                                device_type: number | null;
                                device_id: string | null;
                                /** @description When it was bound, UNIX seconds */
                                created_date: number;
                                probation_ends_at: number | null;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 17 PIN_INVALID, 18 PIN_LOCKED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 17 | 18)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With code 17: wrong PINs left before the PIN locks */
                            attempts_left?: number;
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    devices: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "devices": [
                     *           {
                     *             "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                     *             "device_type": 1,
                     *             "device_id": "abc",
                     *             "device_unique_id": "xyz",
                     *             "created_date": 1767225600,
                     *             "last_used_date": 1767312000,
                     *             "current": 1
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            /** @description The user's bound devices, most recently used first */
                            devices: {
                                /** @description The handle login_pin and devices/remove take */
                                device_key: string;
                                device_type: number | null;
                                device_id: string | null;
                                device_unique_id: string | null;
                                /** @description When it was first bound, UNIX seconds */
                                created_date: number;
                                /** @description Its last binding or PIN login, UNIX seconds */
                                last_used_date: number;
                                /** @description 1: its PIN logins are strong (bound at registration, or past its probation). 0: bound by an OTP login and on probation (contract 3.15) */
                                settled: 0 | 1;
                                probation_ends_at: number | null;
                                /** @description 1 for the device of the presenting session */
                                current: 0 | 1;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    devicesRemove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c"
                 *     }
                 */
                "application/json": {
                    /** @description The device_key a binding answered (32 hex) */
                    device_key: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Device removed",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many sessions bound to the device ended */
                            revoked: number;
                        } | {
                            message: string;
                            /** @constant */
                            pending: 1;
                            /** @description The pending change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id: string;
                            /** @description UNIX seconds from which it takes effect unless cancelled */
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    devicesApprove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c"
                 *     }
                 */
                "application/json": {
                    /** @description The device_key a binding answered (32 hex) */
                    device_key: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Device approved: its PIN logins are strong",
                     *         "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            device_key: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    changePin: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "pin_type": 1,
                 *       "current_pin": "2580",
                 *       "new_pin": "8052"
                 *     }
                 */
                "application/json": {
                    pin_type: 1 | 2;
                    current_pin: string;
                    new_pin: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "PIN changed",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many other sessions of the user ended */
                            revoked: number;
                        } | {
                            message: string;
                            /** @constant */
                            pending: 1;
                            /** @description The pending change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id: string;
                            /** @description UNIX seconds from which it takes effect unless cancelled */
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 17 PIN_INVALID, 18 PIN_LOCKED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 17 | 18)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With code 17: wrong PINs left before the PIN locks */
                            attempts_left?: number;
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    resetPin: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "pin_type": 1,
                 *       "new_pin": "8052"
                 *     }
                 */
                "application/json": {
                    pin_type: 1 | 2;
                    new_pin: string;
                    /** @description A verification_token of an otp_type 2 code for the user’s own phone, verified while presenting this user’s token. Not needed when the presenting session began by OTP login a short while ago. */
                    phone_verification_token?: string | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "PIN reset",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many other sessions of the user ended */
                            revoked: number;
                        } | {
                            message: string;
                            /** @constant */
                            pending: 1;
                            /** @description The pending change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id: string;
                            /** @description UNIX seconds from which it takes effect unless cancelled */
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    stepUp: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                 *       "login_pin": "2580",
                 *       "timestamp": 1767225600,
                 *       "nonce": "c4L0yR3nW8qM2tU9",
                 *       "signature": "MEUCIQDp1x2Rz9mK8nB3vC5tY7uW0qL4sE6hJ2gF1aD9cX3bZwIgQ5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5bN8mQ1wE4rT="
                 *     }
                 */
                "application/json": {
                    /** @description The device_key a binding answered (32 hex) */
                    device_key: string;
                    login_pin: string;
                    /** @description UNIX seconds, signed; within 300 s of the server clock */
                    timestamp: number;
                    /** @description Used once per device */
                    nonce: string;
                    /** @description ECDSA P-256 / SHA-256 by the device key, base64 (DER or raw r||s), over the UTF-8 text "step_up\n<company id, lowercase>\n<device_key>\n<timestamp>\n<nonce>" */
                    signature: string;
                } | {
                    /** @description A passkey assertion (PublicKeyCredential.toJSON()) instead of the device and PIN */
                    passkey: {
                        /** @description The credential id */
                        id: string;
                        /** @description The credential id again, as the platform gives it */
                        rawId: string;
                        /** @constant */
                        type: "public-key";
                        clientExtensionResults?: {
                            [key: string]: unknown;
                        };
                        /** @enum {string} */
                        authenticatorAttachment?: "platform" | "cross-platform";
                        response: {
                            /** @description The client data, as signed */
                            clientDataJSON: string;
                            /** @description The authenticator data */
                            authenticatorData: string;
                            /** @description The signature over the authenticator data and the client data’s hash */
                            signature: string;
                            /** @description The user handle the passkey holds (a discoverable login) */
                            userHandle?: string;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Stepped up",
                     *         "token": {
                     *           "type": "Token",
                     *           "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g"
                     *         },
                     *         "expires_in": 900
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Send back as `Authorization: Token <token>` (or `Bearer <token>`) */
                            token: {
                                /**
                                 * @description The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)
                                 * @enum {string}
                                 */
                                type: "Token" | "DPoP";
                                /** @description An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key */
                                token: string;
                            };
                            /** @description Seconds until the access token expires */
                            expires_in: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 17 PIN_INVALID, 18 PIN_LOCKED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 17 | 18)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With code 17: wrong PINs left before the PIN locks */
                            attempts_left?: number;
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    passkeysRegisterOptions: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Create the passkey with these options, then send its response to passkeys/register",
                     *         "options": {
                     *           "challenge": "q3cUw1Y5bqYw3mU0nq8w2d2m4Yh0Q3g8dQ2w1Yx5c0A",
                     *           "rp": {
                     *             "id": "wallet.example.com",
                     *             "name": "Acme"
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description PublicKeyCredentialCreationOptionsJSON: rp (id, name), user (id: the user handle, base64url), challenge (single-use, 300 s), pubKeyCredParams ES256 and RS256, authenticatorSelection (residentKey preferred, userVerification required), excludeCredentials */
                            options: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 22 DEVICE_LIMIT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 22)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    passkeysRegister: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "AQIDBAUGBwgJCgsMDQ4PEA",
                 *       "rawId": "AQIDBAUGBwgJCgsMDQ4PEA",
                 *       "type": "public-key",
                 *       "response": {
                 *         "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0",
                 *         "attestationObject": "o2NmbXRkbm9uZQ"
                 *       },
                 *       "clientExtensionResults": {},
                 *       "name": "My phone"
                 *     }
                 */
                "application/json": {
                    /** @description The credential id */
                    id: string;
                    /** @description The credential id again, as the platform gives it */
                    rawId: string;
                    /** @constant */
                    type: "public-key";
                    clientExtensionResults?: {
                        [key: string]: unknown;
                    } | "" | null;
                    authenticatorAttachment?: ("platform" | "cross-platform") | "" | null;
                    response: {
                        /** @description The client data, as signed */
                        clientDataJSON: string;
                        /** @description The attestation object (CBOR) */
                        attestationObject: string;
                        transports?: string[];
                    };
                    /** @description What the user calls it (default: "Passkey") */
                    name?: string | "" | null;
                    /** @description An employee’s reason, such as a ticket number: required of an employee, kept in the staff record; a customer sends none */
                    reason?: string | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Passkey added",
                     *         "passkey_id": "9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description The new passkey’s id (32 hex) */
                            passkey_id: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 22 DEVICE_LIMIT, 7 ALREADY_REGISTERED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 22 | 7)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    passkeys: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "passkeys": [
                     *           {
                     *             "passkey_id": "9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e",
                     *             "name": "My phone",
                     *             "created_date": 1767225600,
                     *             "last_used_date": null,
                     *             "backed_up": 1
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            passkeys: {
                                passkey_id: string;
                                name: string;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds of its last login or step-up; null: never used */
                                last_used_date: number | null;
                                /** @description 1: synced by the platform (iCloud Keychain, Google Password Manager) */
                                backed_up: 0 | 1;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    passkeysRemove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "passkey_id": "9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e"
                 *     }
                 */
                "application/json": {
                    passkey_id: string;
                    /** @description An employee’s reason, such as a ticket number: required of an employee, kept in the staff record; a customer sends none */
                    reason?: string | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Passkey removed",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Sessions the passkey had begun, ended with it */
                            revoked: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    passkeysLoginOptions: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": {
                    dial_code?: string | "" | null;
                    phone_number?: string | "" | null;
                    user_type?: (1 | 2) | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Sign with a passkey, then send the response to passkeys/login",
                     *         "options": {
                     *           "challenge": "q3cUw1Y5bqYw3mU0nq8w2d2m4Yh0Q3g8dQ2w1Yx5c0A",
                     *           "rpId": "wallet.example.com",
                     *           "userVerification": "required"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description PublicKeyCredentialRequestOptionsJSON: challenge (single-use, 300 s), rpId, userVerification required, and with a phone allowCredentials (the same shape whether or not the phone has an account or passkeys) */
                            options: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    passkeysLogin: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "AQIDBAUGBwgJCgsMDQ4PEA",
                 *       "rawId": "AQIDBAUGBwgJCgsMDQ4PEA",
                 *       "type": "public-key",
                 *       "response": {
                 *         "clientDataJSON": "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0",
                 *         "authenticatorData": "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ",
                 *         "signature": "MEUCIQ"
                 *       },
                 *       "clientExtensionResults": {}
                 *     }
                 */
                "application/json": {
                    /** @description The credential id */
                    id: string;
                    /** @description The credential id again, as the platform gives it */
                    rawId: string;
                    /** @constant */
                    type: "public-key";
                    clientExtensionResults?: {
                        [key: string]: unknown;
                    } | "" | null;
                    authenticatorAttachment?: ("platform" | "cross-platform") | "" | null;
                    response: {
                        /** @description The client data, as signed */
                        clientDataJSON: string;
                        /** @description The authenticator data */
                        authenticatorData: string;
                        /** @description The signature over the authenticator data and the client data’s hash */
                        signature: string;
                        /** @description The user handle the passkey holds (a discoverable login) */
                        userHandle?: string;
                    };
                    /** @description 1: run "Not me" (user/security/not_me) in the transaction that begins the session */
                    not_me?: 1 | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Logged in successfully",
                     *         "token": {
                     *           "type": "Token",
                     *           "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g"
                     *         },
                     *         "refresh_token": "5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8",
                     *         "expires_in": 900,
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *         "pending_changes": [],
                     *         "probation_devices": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Send back as `Authorization: Token <token>` (or `Bearer <token>`) */
                            token: {
                                /**
                                 * @description The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)
                                 * @enum {string}
                                 */
                                type: "Token" | "DPoP";
                                /** @description An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key */
                                token: string;
                            };
                            /** @description Opaque; spent by POST /wallet/v3/auth/token/refresh for a new pair. Presented again after it was spent, it ends the session */
                            refresh_token: string;
                            /** @description Seconds until the access token expires */
                            expires_in: number;
                            /** @description 32 lower-case hex characters */
                            user_id: string;
                            /** @description With device_public_key: the handle of the bound device (32 lower-case hex), for login_pin. Bound by an OTP login, a new device is on probation (contract 3.15) */
                            device_key?: string;
                            /** @description An OTP login’s device_public_key not bound: every device slot holds a settled device, and a binding never removes one (contract 3.15). The login itself succeeded */
                            device_refused?: {
                                /**
                                 * @description DEVICE_LIMIT (409)
                                 * @constant
                                 */
                                code: 22;
                                detail: string;
                            };
                            /** @description Changes asked for from a session an SMS code alone could have opened: each waits PHONE_CHANGE_HOLD_HOURS, and any session of the user may cancel it (POST /wallet/v3/user/changes/cancel) */
                            pending_changes: {
                                change_id: string;
                                /**
                                 * @description phone: a new number; login_pin or transaction_pin: a new PIN (reset_pin or change_pin); device_remove: a settled device removed; delete, profile, export: the account deleted, its names, birth date or email changed, its export delivered
                                 * @enum {string}
                                 */
                                kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                                /** @description UNIX seconds from which it takes effect unless cancelled */
                                effective_at: number;
                                /**
                                 * @description who asked: the user, or support (a recovery)
                                 * @enum {string}
                                 */
                                via: "user" | "support";
                                /** @description a phone change’s new number, its last 4 digits */
                                phone_last4?: string;
                                /** @description a device removal’s device */
                                device_key?: string;
                            }[];
                            /** @description Devices bound by an OTP login and still on probation: their PIN logins are SMS-strength. From a strong session, approve one (POST /wallet/v3/auth/devices/approve) or remove it; "Not me" (not_me) removes them all */
                            probation_devices: {
                                /** @description The handle login_pin and devices/remove take */
                                device_key: string;
                                device_type: number | null;
                                device_id: string | null;
                                /** @description When it was bound, UNIX seconds */
                                created_date: number;
                                probation_ends_at: number | null;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    tokenRefresh: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "refresh_token": "5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8"
                 *     }
                 */
                "application/json": {
                    /** @description The refresh_token of the last login or refresh answer */
                    refresh_token: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Tokens refreshed",
                     *         "token": {
                     *           "type": "Token",
                     *           "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ikh4M29aMHlxMVFtUjJ2NWJUOHdLNG5DN2RFNmZHOWhKMGtMMW1QMnNBM3UiLCJ0eXAiOiJKV1QifQ.eyJjaWQiOiIwYTFiMmMzZDRlNWY2MDcxODI5M2E0YjVjNmQ3ZThmOSIsInNpZCI6IjljMmU0YjdhMWQzZjVlNjA3MTgyOTMwNGE1YjZjN2Q4IiwidXRwIjoyLCJhbXIiOlsib3RwIl0sImlzcyI6Imh0dHBzOi8vYXV0aC5leGFtcGxlLmNvbSIsImF1ZCI6IndhbGxldCIsInN1YiI6IjVmMWM3YTJiOWQzZTRmNjA3MTgyOTNhNGI1YzZkN2U4IiwiaWF0IjoxNzY0MDgxMDAwLCJleHAiOjE3NjQwODE5MDB9.JIrBfWYh5N7_sdoc4aVo1GrA8M3ymty_X1a1rHWi_VNq56kgW7Z3sJqnLptNTrU8nG-GVsx7sCcCE2akcgJC4g"
                     *         },
                     *         "refresh_token": "5f1c7a2b9d3e4f60718293a4b5c6d7e8.9c2e4b7a1d3f5e6071829304a5b6c7d8.1.1.lKry3FHKS2bpSLm8kXN0BlCoO-vRYVgDQLO_tx2EU5c.TXZK5Lr5cUbu0vLapjxfpjRZEyba4QxyeNzVDp8CFp8",
                     *         "expires_in": 900,
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Send back as `Authorization: Token <token>` (or `Bearer <token>`) */
                            token: {
                                /**
                                 * @description The scheme name to send in Authorization: `DPoP` when the tokens are bound to the key of the request’s DPoP proof (contract 3.17; every call then sends a proof by that key)
                                 * @enum {string}
                                 */
                                type: "Token" | "DPoP";
                                /** @description An access token: a compact JWS signed with ES256 or RS256 (the stage’s ACCESS_TOKEN_ALG; `kid` in its header; claims iss, aud, sub, cid, sid, utp, amr, acr, auth_time, iat, exp, jti), verifiable by any service against /.well-known/jwks.json; a bound one also carries cnf.jkt, the RFC 7638 thumbprint of its key */
                                token: string;
                            };
                            /** @description Opaque; spent by POST /wallet/v3/auth/token/refresh for a new pair. Presented again after it was spent, it ends the session */
                            refresh_token: string;
                            /** @description Seconds until the access token expires */
                            expires_in: number;
                            /** @description 32 lower-case hex characters */
                            user_id: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "scope": "others"
                 *     }
                 */
                "application/json": {
                    /** @description current: this session (the default); others: every other session of the user; all: every session */
                    scope?: ("current" | "others" | "all") | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Logged out of every other session",
                     *         "revoked": 2
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many sessions ended */
                            revoked: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    referralProgram: {
        parameters: {
            query?: {
                user_id?: string;
                limit?: number;
                cursor?: string;
            };
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "notification": [
                     *           {
                     *             "id": "42a13e1937216d491414d1f2dd937844",
                     *             "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *             "is_read": 0,
                     *             "notification_title": "New referral",
                     *             "notification_body": "Carol signed up with your referral code.",
                     *             "notification_type": 1,
                     *             "notification_event_type": 1,
                     *             "created_date": 1795321586,
                     *             "updated_date": 1795321586
                     *           }
                     *         ],
                     *         "referral_code": "B31V25KC",
                     *         "referral_count": 1,
                     *         "next_cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            /** @description Newest first */
                            notification: {
                                id: string;
                                user_id: string;
                                /** @description 0 unread, 1 read */
                                is_read: number;
                                notification_title: string;
                                notification_body: string;
                                /** @description 1 referral, 2 security */
                                notification_type: number;
                                /** @description 1 a referred user signed up; 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked, 6 phone changed, 7 refresh token reused, 9 phone change pending, 10 phone change cancelled */
                                notification_event_type: number;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            }[];
                            referral_code: string;
                            /** @description Users who signed up with this code */
                            referral_count: number;
                            /** @description Pass back as `cursor` for the next page; null on the last page */
                            next_cursor: string | null;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    notifications: {
        parameters: {
            query?: {
                unread?: number;
                limit?: number;
                cursor?: string;
            };
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "notification": [
                     *           {
                     *             "id": "019ab1f3c2e84f2a9d1c7b3e5a6f0d21",
                     *             "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *             "is_read": 0,
                     *             "notification_title": "PIN changed",
                     *             "notification_body": "Your login PIN was changed. Your other sessions were signed out.",
                     *             "notification_type": 2,
                     *             "notification_event_type": 3,
                     *             "created_date": 1795430000,
                     *             "updated_date": 1795430000
                     *           },
                     *           {
                     *             "id": "019ab0c5e1a04c8e2b7f91d3a0c4e5f6",
                     *             "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *             "is_read": 1,
                     *             "notification_title": "New referral",
                     *             "notification_body": "Carol signed up with your referral code.",
                     *             "notification_type": 1,
                     *             "notification_event_type": 1,
                     *             "created_date": 1795321586,
                     *             "updated_date": 1795329000
                     *           }
                     *         ],
                     *         "unread_count": 1,
                     *         "next_cursor": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            /** @description Newest first */
                            notification: {
                                id: string;
                                user_id: string;
                                /** @description 0 unread, 1 read */
                                is_read: number;
                                notification_title: string;
                                notification_body: string;
                                /** @description 1 referral, 2 security */
                                notification_type: number;
                                /** @description 1 a referred user signed up; 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked, 6 phone changed, 7 refresh token reused, 9 phone change pending, 10 phone change cancelled */
                                notification_event_type: number;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            }[];
                            /** @description How many of the user's notifications are unread, whatever the page holds */
                            unread_count: number;
                            /** @description Pass back as `cursor` for the next page; null on the last page */
                            next_cursor: string | null;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    notificationsRead: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "ids": [
                 *         "019ab1f3c2e84f2a9d1c7b3e5a6f0d21"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Notifications to mark read */
                    ids?: string[] | "" | null;
                    /** @description 1: mark every unread notification read */
                    all?: 1 | "" | null;
                    /** @description With all: only those created at or before this time (UNIX seconds) */
                    before?: number | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Notifications marked read",
                     *         "marked": 1,
                     *         "unread_count": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many notifications this call changed from unread to read */
                            marked: number;
                            /** @description How many of the user's notifications are unread now */
                            unread_count: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    transactionAuthorization: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "transaction_pin": "1397",
                 *       "amount": "10.50",
                 *       "currency": "EUR",
                 *       "payee": "Acme Coffee",
                 *       "reference": "order-2024-0001"
                 *     }
                 */
                "application/json": {
                    /** @description The transaction PIN (a string, so leading zeros stay) */
                    transaction_pin: string;
                    /** @description A decimal string greater than 0, at most 12 integer and 4 fraction digits: "10.5" and "10.50" are one amount */
                    amount: string;
                    /**
                     * @description ISO 4217 code, three capital letters
                     * @example EUR
                     */
                    currency: string;
                    /** @description Who is paid (1-128 characters), compared exactly */
                    payee: string;
                    /** @description The payment's own id (1-128 characters): one live authorization per reference and user */
                    reference: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "authorization_token": "Qm9vN3lDa2hYcnZ0TjVwS0ZqYlJ3Z1UyeEx6YTFkU2U",
                     *         "expires_in": 120
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            /** @description For the payment service to redeem once (redeemAuthorization); 256 random bits, stored only hashed */
                            authorization_token: string;
                            /** @description Seconds the authorization can be redeemed */
                            expires_in: number;
                            /**
                             * @description How strong the approving session was (contract 3.15): the payment service hears it at redeem and may set its own limits
                             * @enum {string}
                             */
                            acr: "strong" | "sms";
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 17 PIN_INVALID, 18 PIN_LOCKED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 17 | 18)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With code 17: wrong PINs left before the PIN locks */
                            attempts_left?: number;
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userProfile: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "user": {
                     *           "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *           "user_type": 2,
                     *           "first_name": "Ada",
                     *           "last_name": "Lovelace",
                     *           "email": "ada@example.com",
                     *           "dial_code": "+1",
                     *           "phone_number": "2025550143",
                     *           "phone_verified": 1,
                     *           "birth_date": 631152000000,
                     *           "image": null,
                     *           "kyc_status": 1,
                     *           "kyc_process_status": 1,
                     *           "country_id": null,
                     *           "location_point": "38.8977,-77.0365",
                     *           "referral_code": "94MQE4QQ",
                     *           "status_id": 1,
                     *           "created_date": 1767225600,
                     *           "updated_date": 1767225600
                     *         },
                     *         "pending_phone_change": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            user: {
                                /** @description 32 lower-case hex characters */
                                user_id: string;
                                /** @description 1 employee, 2 customer */
                                user_type: number;
                                first_name: string;
                                last_name: string;
                                email: string | null;
                                dial_code: string;
                                phone_number: string;
                                /** @description 1 once the user proved the phone */
                                phone_verified: number;
                                birth_date: number | null;
                                image: string | null;
                                kyc_status: number;
                                kyc_process_status: number;
                                country_id: string | null;
                                location_point: string | null;
                                referral_code: string;
                                /** @description 1 active (a token of any other status answers 401) */
                                status_id: number;
                                /** @description An employee's back-office role (3.14): support, admin, or null for none; absent for a customer */
                                role?: ("support" | "admin") | null;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            };
                            pending_phone_change: {
                                /** @description 32 lower-case hex characters */
                                change_id: string;
                                /** @description UNIX seconds from which an OTP login to the new number completes it */
                                effective_at: number;
                                /** @description the last 4 digits of the new number */
                                phone_last4: string;
                            } | null;
                            /** @description Changes asked for from a session an SMS code alone could have opened: each waits PHONE_CHANGE_HOLD_HOURS, and any session of the user may cancel it (POST /wallet/v3/user/changes/cancel) */
                            pending_changes: {
                                change_id: string;
                                /**
                                 * @description phone: a new number; login_pin or transaction_pin: a new PIN (reset_pin or change_pin); device_remove: a settled device removed; delete, profile, export: the account deleted, its names, birth date or email changed, its export delivered
                                 * @enum {string}
                                 */
                                kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                                /** @description UNIX seconds from which it takes effect unless cancelled */
                                effective_at: number;
                                /**
                                 * @description who asked: the user, or support (a recovery)
                                 * @enum {string}
                                 */
                                via: "user" | "support";
                                /** @description a phone change’s new number, its last 4 digits */
                                phone_last4?: string;
                                /** @description a device removal’s device */
                                device_key?: string;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userProfileUpdate: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "first_name": "Augusta Ada",
                 *       "email": "ada.king@example.com"
                 *     }
                 */
                "application/json": {
                    first_name?: string | "" | null;
                    last_name?: string | "" | null;
                    email?: string | "" | null;
                    image?: string | "" | null;
                    birth_date?: number | "" | null;
                    location_point?: string | "" | null;
                    phone_number?: unknown | "" | null;
                    dial_code?: unknown | "" | null;
                    user_type?: unknown | "" | null;
                    status_id?: unknown | "" | null;
                    kyc_status?: unknown | "" | null;
                    kyc_process_status?: unknown | "" | null;
                    referral_code?: unknown | "" | null;
                    country_id?: unknown | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Profile updated",
                     *         "user": {
                     *           "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *           "user_type": 2,
                     *           "first_name": "Augusta Ada",
                     *           "last_name": "Lovelace",
                     *           "email": "ada.king@example.com",
                     *           "dial_code": "+1",
                     *           "phone_number": "2025550143",
                     *           "phone_verified": 1,
                     *           "birth_date": 631152000000,
                     *           "image": null,
                     *           "kyc_status": 1,
                     *           "kyc_process_status": 1,
                     *           "country_id": null,
                     *           "location_point": "38.8977,-77.0365",
                     *           "referral_code": "94MQE4QQ",
                     *           "status_id": 1,
                     *           "created_date": 1767225600,
                     *           "updated_date": 1767225600
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            user: {
                                /** @description 32 lower-case hex characters */
                                user_id: string;
                                /** @description 1 employee, 2 customer */
                                user_type: number;
                                first_name: string;
                                last_name: string;
                                email: string | null;
                                dial_code: string;
                                phone_number: string;
                                /** @description 1 once the user proved the phone */
                                phone_verified: number;
                                birth_date: number | null;
                                image: string | null;
                                kyc_status: number;
                                kyc_process_status: number;
                                country_id: string | null;
                                location_point: string | null;
                                referral_code: string;
                                /** @description 1 active (a token of any other status answers 401) */
                                status_id: number;
                                /** @description An employee's back-office role (3.14): support, admin, or null for none; absent for a customer */
                                role?: ("support" | "admin") | null;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            };
                            /**
                             * @description Present when a change of the names, birth date or email waits (an SMS-strength session, contract 3.15): `user` shows what changed at once (image, location), not what waits
                             * @constant
                             */
                            pending?: 1;
                            /** @description The pending profile change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id?: string;
                            /** @description UNIX seconds from which it lands (at the next profile read) unless cancelled */
                            effective_at?: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 7 ALREADY_REGISTERED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 7)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userExport: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "exported_date": 1767312000,
                     *         "user": {
                     *           "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *           "user_type": 2,
                     *           "first_name": "Ada",
                     *           "last_name": "Lovelace",
                     *           "email": "ada@example.com",
                     *           "dial_code": "+1",
                     *           "phone_number": "2025550143",
                     *           "phone_verified": 1,
                     *           "birth_date": 631152000000,
                     *           "image": null,
                     *           "kyc_status": 1,
                     *           "kyc_process_status": 1,
                     *           "country_id": null,
                     *           "location_point": "38.8977,-77.0365",
                     *           "referral_code": "94MQE4QQ",
                     *           "status_id": 1,
                     *           "created_date": 1767225600,
                     *           "updated_date": 1767225600
                     *         },
                     *         "referral": {
                     *           "referral_code": "94MQE4QQ",
                     *           "referral_count": 2
                     *         },
                     *         "devices": [
                     *           {
                     *             "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                     *             "device_type": 1,
                     *             "device_id": "pixel-8",
                     *             "device_unique_id": "u-1",
                     *             "created_date": 1767225600,
                     *             "last_used_date": 1767312000
                     *           }
                     *         ],
                     *         "sessions": [
                     *           {
                     *             "began": "pin",
                     *             "created_date": 1767312000,
                     *             "last_used_date": 1767312000,
                     *             "expires_date": 1769904000,
                     *             "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c"
                     *           }
                     *         ],
                     *         "notifications": [
                     *           {
                     *             "id": "0000000001767225600000a1b2c3d4",
                     *             "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *             "is_read": 0,
                     *             "notification_title": "New device",
                     *             "notification_body": "A new device can now sign in to your account. If this was not you, remove it and reset your PIN.",
                     *             "notification_type": 2,
                     *             "notification_event_type": 2,
                     *             "created_date": 1767225600,
                     *             "updated_date": 1767225600
                     *           }
                     *         ],
                     *         "security_events": [],
                     *         "staff_actions": [
                     *           {
                     *             "action": "view",
                     *             "actor_id": "9a8b7c6d5e4f30211203948576a6b5c4",
                     *             "date": 1767312300
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            /** @description When this export was made, UNIX seconds */
                            exported_date: number;
                            user: {
                                /** @description 32 lower-case hex characters */
                                user_id: string;
                                /** @description 1 employee, 2 customer */
                                user_type: number;
                                first_name: string;
                                last_name: string;
                                email: string | null;
                                dial_code: string;
                                phone_number: string;
                                /** @description 1 once the user proved the phone */
                                phone_verified: number;
                                birth_date: number | null;
                                image: string | null;
                                kyc_status: number;
                                kyc_process_status: number;
                                country_id: string | null;
                                location_point: string | null;
                                referral_code: string;
                                /** @description 1 active (a token of any other status answers 401) */
                                status_id: number;
                                /** @description An employee's back-office role (3.14): support, admin, or null for none; absent for a customer */
                                role?: ("support" | "admin") | null;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            };
                            referral: {
                                referral_code: string;
                                /** @description Users who signed up with the code */
                                referral_count: number;
                            };
                            devices: {
                                /** @description The handle login_pin and devices/remove take */
                                device_key: string;
                                device_type: number | null;
                                device_id: string | null;
                                device_unique_id: string | null;
                                /** @description When it was first bound, UNIX seconds */
                                created_date: number;
                                /** @description Its last binding or PIN login, UNIX seconds */
                                last_used_date: number;
                                /** @description 1: its PIN logins are strong (bound at registration, or past its probation). 0: bound by an OTP login and on probation (contract 3.15) */
                                settled: 0 | 1;
                                probation_ends_at: number | null;
                            }[];
                            passkeys: {
                                passkey_id: string;
                                name: string;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds of its last login or step-up; null: never used */
                                last_used_date: number | null;
                                /** @description 1: synced by the platform (iCloud Keychain, Google Password Manager) */
                                backed_up: 0 | 1;
                            }[];
                            /** @description Changes asked for from a session an SMS code alone could have opened: each waits PHONE_CHANGE_HOLD_HOURS, and any session of the user may cancel it (POST /wallet/v3/user/changes/cancel) */
                            pending_changes: {
                                change_id: string;
                                /**
                                 * @description phone: a new number; login_pin or transaction_pin: a new PIN (reset_pin or change_pin); device_remove: a settled device removed; delete, profile, export: the account deleted, its names, birth date or email changed, its export delivered
                                 * @enum {string}
                                 */
                                kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                                /** @description UNIX seconds from which it takes effect unless cancelled */
                                effective_at: number;
                                /**
                                 * @description who asked: the user, or support (a recovery)
                                 * @enum {string}
                                 */
                                via: "user" | "support";
                                /** @description a phone change’s new number, its last 4 digits */
                                phone_last4?: string;
                                /** @description a device removal’s device */
                                device_key?: string;
                            }[];
                            /** @description Sessions still stored, newest first; never a token */
                            sessions: {
                                began: string | null;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description Its last recorded use (at most hourly), UNIX seconds */
                                last_used_date: number;
                                /** @description When it ends at the latest, UNIX seconds */
                                expires_date: number;
                                device_key: string | null;
                            }[];
                            /** @description Every notification, newest first */
                            notifications: {
                                id: string;
                                user_id: string;
                                /** @description 0 unread, 1 read */
                                is_read: number;
                                notification_title: string;
                                notification_body: string;
                                /** @description 1 referral, 2 security */
                                notification_type: number;
                                /** @description 1 a referred user signed up; 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked, 6 phone changed, 7 refresh token reused, 9 phone change pending, 10 phone change cancelled */
                                notification_event_type: number;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            }[];
                            /** @description The security notifications (type 2) among them: new device, PIN changed, reset or locked, token reuse */
                            security_events: {
                                id: string;
                                user_id: string;
                                /** @description 0 unread, 1 read */
                                is_read: number;
                                notification_title: string;
                                notification_body: string;
                                /** @description 1 referral, 2 security */
                                notification_type: number;
                                /** @description 1 a referred user signed up; 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked, 6 phone changed, 7 refresh token reused, 9 phone change pending, 10 phone change cancelled */
                                notification_event_type: number;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                            }[];
                            /** @description What the company’s staff did on this account, searches and views included, newest first */
                            staff_actions: {
                                /** @description search, view, sessions_end, status, device_remove, restore, phone_recover, ... */
                                action: string;
                                /** @description The employee who acted */
                                actor_id: string;
                                /** @description UNIX seconds */
                                date: number;
                            }[];
                        } | {
                            message: string;
                            /** @constant */
                            pending: 1;
                            /** @description The pending change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id: string;
                            /** @description UNIX seconds from which it takes effect unless cancelled */
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userPhoneChange: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "dial_code": "+1",
                 *       "phone_number": "2025550143",
                 *       "phone_verification_token": "q3Zk0uJ8yVtq0l2b6c9X1sFhR4mN7pWd"
                 *     }
                 */
                "application/json": {
                    dial_code: string;
                    phone_number: string;
                    /** @description Required: a verification_token of an otp_type 2 code sent to the NEW number, verified while presenting this user’s token. */
                    phone_verification_token?: string | "" | null;
                    /** @description The user’s login PIN: required when the presenting session began by OTP login (the change then waits PHONE_CHANGE_HOLD_HOURS); counted toward its lock. */
                    login_pin?: string | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Phone number changed",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many other sessions of the user ended */
                            revoked: number;
                        } | {
                            message: string;
                            /** @constant */
                            pending: 1;
                            /** @description The pending change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id: string;
                            /** @description UNIX seconds from which it takes effect unless cancelled */
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED, 17 PIN_INVALID, 18 PIN_LOCKED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14 | 17 | 18)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With code 17: wrong PINs left before the PIN locks */
                            attempts_left?: number;
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 7 ALREADY_REGISTERED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 7)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userPhoneChangeCancel: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f"
                 *     }
                 */
                "application/json": {
                    /** @description The change_id a held change answered, or one listed in pending_changes */
                    change_id: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Phone number change cancelled",
                     *         "kind": "phone"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /**
                             * @description The kind of the change cancelled
                             * @enum {string}
                             */
                            kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userChangesCancel: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f"
                 *     }
                 */
                "application/json": {
                    /** @description The change_id a held change answered, or one listed in pending_changes */
                    change_id: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Login PIN change cancelled",
                     *         "kind": "login_pin"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /**
                             * @description The kind of the change cancelled
                             * @enum {string}
                             */
                            kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userSecurityNotMe: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Secured: every change that waited is cancelled, every other session ended and new devices removed",
                     *         "cancelled": 2,
                     *         "revoked": 3,
                     *         "devices_removed": 1,
                     *         "passkeys_removed": 0
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Pending changes cancelled (a recovery by support stays) */
                            cancelled: number;
                            /** @description Other sessions ended */
                            revoked: number;
                            /** @description Devices on probation removed, with their sessions */
                            devices_removed: number;
                            /** @description Passkeys registered less than CREDENTIAL_PROBATION_HOURS ago removed */
                            passkeys_removed: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    userDelete: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Account deleted",
                     *         "erase_after": 1769904000
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description UNIX seconds: when the account is erased, unless an operator restores it before */
                            erase_after: number;
                        } | {
                            message: string;
                            /** @constant */
                            pending: 1;
                            /** @description The pending change: POST /wallet/v3/user/changes/cancel takes it */
                            change_id: string;
                            /** @description UNIX seconds from which it takes effect unless cancelled */
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 21 LAST_ADMIN */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 21)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminEmployeeRole: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "role": "support",
                 *       "reason": "ticket 4711: new support agent"
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    /** @enum {string} */
                    role: "support" | "admin" | "none";
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Role asked: another admin approves it (employees/approve) before approve_by, or it is void",
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *         "role": "support",
                     *         "pending": 1,
                     *         "grant_id": "0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b",
                     *         "approve_by": 1767571200
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            user_id: string;
                            /** @enum {string} */
                            role: "support" | "admin" | "none";
                            /** @description 1: asked, not yet set; another admin approves it */
                            pending: 0 | 1;
                            /** @description The grant another admin approves (employees/approve) */
                            grant_id?: string;
                            /** @description UNIX seconds: the grant is void, unapproved, from then on */
                            approve_by?: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 21 LAST_ADMIN */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 21)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminEmployeesApprove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "grant_id": "0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b",
                 *       "reason": "ticket 4712: second admin for the night shift"
                 *     }
                 */
                "application/json": {
                    grant_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Role granted",
                     *         "grant_id": "0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b",
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *         "role": "admin"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            grant_id: string;
                            user_id: string;
                            /** @enum {string} */
                            role: "support" | "admin";
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 23 STATE_CONFLICT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 23)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminEmployeesDevicesApprove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                 *       "reason": "ticket 4713: new laptop"
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    /** @description The device_key a binding answered (32 hex) */
                    device_key: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Device approved: its PIN logins are strong",
                     *         "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *         "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            user_id: string;
                            device_key: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminApprovalsList: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "ticket 4713: morning review"
                 *     }
                 */
                "application/json": {
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "grants": [
                     *           {
                     *             "grant_id": "0b6e2f4a8c1d3e5f7a9b0c2d4e6f8a1b",
                     *             "kind": "role",
                     *             "requested_by": "9a8b7c6d5e4f30211203f4e5d6c7b8a9",
                     *             "requested_at": 1767312000,
                     *             "approve_by": 1767571200,
                     *             "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *             "role": "admin",
                     *             "from_role": "support"
                     *           }
                     *         ],
                     *         "recoveries": [
                     *           {
                     *             "change_id": "3c1e5a7b9d2f4a6c8e0b1d3f5a7c9e2b",
                     *             "user_id": "2b4d6f8a0c1e3a5c7e9b1d3f5a7c9e1d",
                     *             "phone_last4": "0143",
                     *             "started_by": "4e6a8c0b2d4f6a8c0e2b4d6f8a0c2e4b",
                     *             "started_at": 1767315600,
                     *             "approve_by": 1767574800
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            grants: {
                                grant_id: string;
                                /**
                                 * @description role: approve with employees/approve; company: with company/approve
                                 * @enum {string}
                                 */
                                kind: "role" | "company";
                                /** @description The admin who asked: another admin approves */
                                requested_by: string;
                                /** @description UNIX seconds */
                                requested_at: number;
                                /** @description UNIX seconds: void, unapproved, from then on */
                                approve_by: number;
                                /** @description A role grant: the employee it is for */
                                user_id?: string;
                                /** @enum {string} */
                                role?: "support" | "admin";
                                /**
                                 * @description A role grant: the role the employee has now
                                 * @enum {string}
                                 */
                                from_role?: "none" | "support" | "admin";
                                /** @description A company grant: the security settings it changes */
                                settings?: string[];
                                /** @description A company grant: the change as company/update took it */
                                changes?: {
                                    [key: string]: unknown;
                                };
                            }[];
                            recoveries: {
                                change_id: string;
                                user_id: string;
                                /** @description The last 4 digits of the number it moves the account to */
                                phone_last4: string;
                                /** @description The employee who started it: another admin approves */
                                started_by: string;
                                /** @description UNIX seconds */
                                started_at: number;
                                /** @description UNIX seconds: void, unapproved, from then on */
                                approve_by: number;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersSearch: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "phone": "+12025550143",
                 *       "reason": "call 8812: customer lost access"
                 *     }
                 */
                "application/json": {
                    /** @description A phone number in E.164 */
                    phone?: string | "" | null;
                    email?: string | "" | null;
                    user_id?: string | "" | null;
                    referral_code?: string | "" | null;
                    user_type?: (1 | 2) | "" | null;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "users": [
                     *           {
                     *             "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *             "user_type": 2,
                     *             "first_name": "Ada",
                     *             "last_name": "Lovelace",
                     *             "phone_last4": "0143",
                     *             "email_masked": "a***@example.com",
                     *             "phone_verified": 1,
                     *             "status_id": 1,
                     *             "created_date": 1764081000
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            /** @description Empty, or the one user the exact key names */
                            users: {
                                user_id: string;
                                user_type: number;
                                first_name: string;
                                last_name: string;
                                /** @description The last 4 digits of the phone number */
                                phone_last4: string;
                                email_masked: string | null;
                                phone_verified: number;
                                status_id: number;
                                created_date: number;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description TOO_MANY_REQUESTS: 12 TOO_MANY_REQUESTS */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 12[];
                        data: {
                            /** @constant */
                            message: "TOO_MANY_REQUESTS";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersPhoneRecover: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "dial_code": "+1",
                 *       "phone_number": "2025550199",
                 *       "reason": "ticket 9120: phone stolen, ID checked in branch"
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    dial_code: string;
                    phone_number: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Recovery started: another employee, an admin, must approve it",
                     *         "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f",
                     *         "approve_by": 1764167400
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            change_id: string;
                            approve_by: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED, 15 SMS_DESTINATION_NOT_ALLOWED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14 | 15)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 7 ALREADY_REGISTERED, 23 STATE_CONFLICT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 7 | 23)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description TOO_MANY_REQUESTS: 12 TOO_MANY_REQUESTS */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 12[];
                        data: {
                            /** @constant */
                            message: "TOO_MANY_REQUESTS";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersPhoneApprove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f",
                 *       "reason": "ticket 9120: checked the branch’s ID record"
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    change_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Recovery approved: it completes at a login to the new number after the hold",
                     *         "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f",
                     *         "effective_at": 1764253800
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            change_id: string;
                            effective_at: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 23 STATE_CONFLICT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 23)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersPhoneCancel: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f",
                 *       "reason": "call 8830: the customer did not ask for this"
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    change_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Phone number change cancelled",
                     *         "change_id": "6f1c0b7e9a2d4c3b8e5f7a1d2c4b6e8f"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            change_id: string;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersSessionsEnd: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "reason": "call 8812: phone stolen"
                 *     }
                 */
                "application/json": {
                    /** @description The user acted on: a user of the company */
                    user_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                    /** @description The session to end (its access token’s sid, as the view lists it); absent: every session of the user */
                    sid?: string | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Every session ended",
                     *         "revoked": 2
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many sessions ended */
                            revoked: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersStatus: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "status": "disabled",
                 *       "reason": "ticket 5521: account takeover reported"
                 *     }
                 */
                "application/json": {
                    /** @description The user acted on: a user of the company */
                    user_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                    /**
                     * @description disabled: an active user becomes status 2 and every session ends; active (admin only): a disabled user becomes 1
                     * @enum {string}
                     */
                    status: "disabled" | "active";
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "User disabled",
                     *         "status_id": 2,
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description The user’s status now: 2 disabled, 1 active */
                            status_id: number;
                            /** @description How many sessions ended (none when enabling) */
                            revoked: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 21 LAST_ADMIN, 23 STATE_CONFLICT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 21 | 23)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersDevicesRemove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                 *       "reason": "call 8812: phone lost"
                 *     }
                 */
                "application/json": {
                    /** @description The user acted on: a user of the company */
                    user_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                    /** @description The device_key a binding answered (32 hex) */
                    device_key: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Device removed",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description How many sessions bound to the device ended */
                            revoked: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersPasskeysRemove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "passkey_id": "9b1d6c3e5f7a8b2c4d6e8f0a1b3c5d7e",
                 *       "reason": "call 8812: phone stolen unlocked"
                 *     }
                 */
                "application/json": {
                    /** @description The user acted on: a user of the company */
                    user_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                    passkey_id: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Passkey removed",
                     *         "revoked": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Sessions the passkey had begun, ended with it */
                            revoked: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersRestore: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "reason": "ticket 6120: deleted by mistake"
                 *     }
                 */
                "application/json": {
                    /** @description The user acted on: a user of the company */
                    user_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "User restored",
                     *         "status_id": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description The user’s status now: 1 active */
                            status_id: number;
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 7 ALREADY_REGISTERED, 23 STATE_CONFLICT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 7 | 23)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminUsersView: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                 *       "reason": "call 8812: customer lost access"
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    /** @description 1: the whole phone number and email (admin only; a support employee: 403 code 5) */
                    reveal?: (0 | 1) | "" | null;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "user": {
                     *           "user_id": "5f1c7a2b9d3e4f60718293a4b5c6d7e8",
                     *           "user_type": 2,
                     *           "first_name": "Ada",
                     *           "last_name": "Lovelace",
                     *           "phone_verified": 1,
                     *           "birth_date": 631152000000,
                     *           "image": null,
                     *           "kyc_status": 1,
                     *           "kyc_process_status": 1,
                     *           "country_id": null,
                     *           "location_point": "38.8977,-77.0365",
                     *           "referral_code": "94MQE4QQ",
                     *           "status_id": 1,
                     *           "created_date": 1767225600,
                     *           "updated_date": 1767225600,
                     *           "phone_last4": "0143",
                     *           "email_masked": "a***@example.com"
                     *         },
                     *         "devices": [
                     *           {
                     *             "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c",
                     *             "device_type": 1,
                     *             "device_id": "pixel-8",
                     *             "device_unique_id": "u-1",
                     *             "created_date": 1767225600,
                     *             "last_used_date": 1767312000
                     *           }
                     *         ],
                     *         "sessions": [
                     *           {
                     *             "sid": "7c1e5a9b3d2f4e6a8b0c1d2e3f4a5b6c",
                     *             "began": "pin",
                     *             "created_date": 1767312000,
                     *             "last_used_date": 1767312000,
                     *             "expires_date": 1769904000,
                     *             "device_key": "3f2a9c7e1b4d6f8a0c2e4a6b8d0f1a3c"
                     *           }
                     *         ],
                     *         "pins": {
                     *           "login": {
                     *             "set": 1,
                     *             "locked": 0,
                     *             "attempts_left": 5
                     *           },
                     *           "transaction": {
                     *             "set": 1,
                     *             "locked": 1,
                     *             "attempts_left": 0
                     *           }
                     *         },
                     *         "pending_phone_change": null,
                     *         "deletion": null,
                     *         "referral_count": 2,
                     *         "security_events": [
                     *           {
                     *             "notification_event_type": 5,
                     *             "notification_title": "PIN locked",
                     *             "created_date": 1767310000
                     *           }
                     *         ],
                     *         "staff_actions": [
                     *           {
                     *             "action": "view",
                     *             "actor_id": "9a8b7c6d5e4f30211203948576a6b5c4",
                     *             "date": 1767312300
                     *           },
                     *           {
                     *             "action": "search",
                     *             "actor_id": "9a8b7c6d5e4f30211203948576a6b5c4",
                     *             "date": 1767312240
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            user: {
                                /** @description 32 lower-case hex characters */
                                user_id: string;
                                /** @description 1 employee, 2 customer */
                                user_type: number;
                                first_name: string;
                                last_name: string;
                                /** @description 1 once the user proved the phone */
                                phone_verified: number;
                                birth_date: number | null;
                                image: string | null;
                                kyc_status: number;
                                kyc_process_status: number;
                                country_id: string | null;
                                location_point: string | null;
                                referral_code: string;
                                /** @description 1 active (a token of any other status answers 401) */
                                status_id: number;
                                /** @description An employee's back-office role (3.14): support, admin, or null for none; absent for a customer */
                                role?: ("support" | "admin") | null;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds */
                                updated_date: number;
                                /** @description The last 4 digits of the phone number */
                                phone_last4: string;
                                email_masked: string | null;
                                /** @description Only when an admin sent reveal: 1 */
                                dial_code?: string;
                                /** @description Only when an admin sent reveal: 1 */
                                phone_number?: string;
                                email?: string | null;
                            };
                            /** @description The bound devices, most recently used first, as the user’s own list shows them */
                            devices: {
                                /** @description The handle login_pin and devices/remove take */
                                device_key: string;
                                device_type: number | null;
                                device_id: string | null;
                                device_unique_id: string | null;
                                /** @description When it was first bound, UNIX seconds */
                                created_date: number;
                                /** @description Its last binding or PIN login, UNIX seconds */
                                last_used_date: number;
                                /** @description 1: its PIN logins are strong (bound at registration, or past its probation). 0: bound by an OTP login and on probation (contract 3.15) */
                                settled: 0 | 1;
                                probation_ends_at: number | null;
                            }[];
                            /** @description The passkeys, newest first, as the user’s own list shows them (never a key); staff remove one with users/passkeys/remove */
                            passkeys: {
                                passkey_id: string;
                                name: string;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description UNIX seconds of its last login or step-up; null: never used */
                                last_used_date: number | null;
                                /** @description 1: synced by the platform (iCloud Keychain, Google Password Manager) */
                                backed_up: 0 | 1;
                            }[];
                            /** @description The sessions not ended or expired, newest first; never a token */
                            sessions: {
                                began: string | null;
                                /** @description UNIX seconds */
                                created_date: number;
                                /** @description Its last recorded use (at most hourly), UNIX seconds */
                                last_used_date: number;
                                /** @description When it ends at the latest, UNIX seconds */
                                expires_date: number;
                                device_key: string | null;
                                sid: string | null;
                            }[];
                            pins: {
                                login: {
                                    /** @description 0: the user has no such PIN */
                                    set: 0 | 1;
                                    /** @description 1 after too many wrong tries: opened by an OTP login (login PIN) or a reset */
                                    locked: 0 | 1;
                                    attempts_left: number;
                                };
                                transaction: {
                                    /** @description 0: the user has no such PIN */
                                    set: 0 | 1;
                                    /** @description 1 after too many wrong tries: opened by an OTP login (login PIN) or a reset */
                                    locked: 0 | 1;
                                    attempts_left: number;
                                };
                            };
                            pending_phone_change: {
                                change_id: string;
                                /** @description UNIX seconds from which an OTP login to the new number completes it */
                                effective_at: number;
                                /** @description the last 4 digits of the new number */
                                phone_last4: string;
                                /** @enum {string} */
                                via: "user" | "support";
                                /** @description 1: a recovery a second employee, an admin, has not approved yet (effective_at is then its approval deadline) */
                                awaiting_approval: number;
                                started_by: string | null;
                            } | null;
                            /** @description Changes asked for from a session an SMS code alone could have opened: each waits PHONE_CHANGE_HOLD_HOURS, and any session of the user may cancel it (POST /wallet/v3/user/changes/cancel) */
                            pending_changes: {
                                change_id: string;
                                /**
                                 * @description phone: a new number; login_pin or transaction_pin: a new PIN (reset_pin or change_pin); device_remove: a settled device removed; delete, profile, export: the account deleted, its names, birth date or email changed, its export delivered
                                 * @enum {string}
                                 */
                                kind: "phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export";
                                /** @description UNIX seconds from which it takes effect unless cancelled */
                                effective_at: number;
                                /**
                                 * @description who asked: the user, or support (a recovery)
                                 * @enum {string}
                                 */
                                via: "user" | "support";
                                /** @description a phone change’s new number, its last 4 digits */
                                phone_last4?: string;
                                /** @description a device removal’s device */
                                device_key?: string;
                            }[];
                            deletion: {
                                /** @description UNIX seconds: when the account is erased unless restored */
                                erase_after: number;
                            } | null;
                            /** @description Users who signed up with the user’s referral code */
                            referral_count: number;
                            /** @description The latest 20 security notifications (type 2), newest first */
                            security_events: {
                                /** @description 1 a referred user signed up; 2 new device, 3 PIN changed, 4 PIN reset, 5 PIN locked, 6 phone changed, 7 refresh token reused, 9 phone change pending, 10 phone change cancelled */
                                notification_event_type: number;
                                notification_title: string;
                                /** @description UNIX seconds */
                                created_date: number;
                            }[];
                            /** @description The latest 50 back-office actions on the user, this view included, newest first */
                            staff_actions: {
                                /** @description search, view, sessions_end, status, device_remove, restore, phone_recover, ... */
                                action: string;
                                /** @description The employee who acted */
                                actor_id: string;
                                /** @description UNIX seconds */
                                date: number;
                            }[];
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description TOO_MANY_REQUESTS: 12 TOO_MANY_REQUESTS */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 12[];
                        data: {
                            /** @constant */
                            message: "TOO_MANY_REQUESTS";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminCompanyView: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "ticket 9120: check the Hindi text"
                 *     }
                 */
                "application/json": {
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "company": {
                     *           "company_id": "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
                     *           "name": "Chai Pay",
                     *           "require_verified_phone": 1,
                     *           "require_dpop": 0,
                     *           "sms_payment_limit": {
                     *             "INR": "2000"
                     *           },
                     *           "sms_countries": [
                     *             "IN"
                     *           ],
                     *           "sms_text": {
                     *             "templates": {
                     *               "en": "{code} is your {brand} code. It expires in {minutes} minutes.",
                     *               "hi": "{code} आपका {brand} कोड है। {minutes} मिनट में समाप्त।"
                     *             },
                     *             "default_language": "hi",
                     *             "app_hash": "FA+9qCX9VSu",
                     *             "webotp_domain": null
                     *           },
                     *           "phone_change_texts": {
                     *             "hi": "आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।"
                     *           },
                     *           "warning_texts": {
                     *             "phone": {
                     *               "hi": "आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।"
                     *             },
                     *             "login_pin": {
                     *               "hi": "आपके {brand} खाते के लिए नया लॉगिन PIN माँगा गया। यह आपने नहीं किया तो {brand} ऐप खोलकर रद्द करें।"
                     *             },
                     *             "transaction_pin": {},
                     *             "device_remove": {},
                     *             "delete": {},
                     *             "profile": {},
                     *             "export": {},
                     *             "new_device": {}
                     *           },
                     *           "limits": {
                     *             "sms_per_hour": {
                     *               "value": 5000,
                     *               "default": 1000,
                     *               "source": "company",
                     *               "min": 1
                     *             },
                     *             "sms_per_prefix_per_hour": {
                     *               "value": 20,
                     *               "default": 20,
                     *               "source": "default",
                     *               "min": 0
                     *             },
                     *             "sends_per_address_per_hour": {
                     *               "value": 30,
                     *               "default": 30,
                     *               "source": "default",
                     *               "min": 0
                     *             },
                     *             "verifies_per_address": {
                     *               "value": 30,
                     *               "default": 30,
                     *               "source": "default",
                     *               "min": 0
                     *             }
                     *           },
                     *           "sms_sizes": {
                     *             "en": {
                     *               "segments": 1,
                     *               "encoding": "GSM-7",
                     *               "units": 66
                     *             },
                     *             "hi": {
                     *               "segments": 1,
                     *               "encoding": "UCS-2",
                     *               "units": 59
                     *             }
                     *           },
                     *           "phone_change_sizes": {
                     *             "hi": {
                     *               "segments": 2,
                     *               "encoding": "UCS-2",
                     *               "units": 91
                     *             }
                     *           },
                     *           "warning_sizes": {
                     *             "phone": {
                     *               "hi": {
                     *                 "segments": 2,
                     *                 "encoding": "UCS-2",
                     *                 "units": 91
                     *               }
                     *             },
                     *             "login_pin": {
                     *               "hi": {
                     *                 "segments": 2,
                     *                 "encoding": "UCS-2",
                     *                 "units": 100
                     *               }
                     *             },
                     *             "transaction_pin": {},
                     *             "device_remove": {},
                     *             "delete": {},
                     *             "profile": {},
                     *             "export": {},
                     *             "new_device": {}
                     *           },
                     *           "warnings": [],
                     *           "updated_at": 1767312000
                     *         },
                     *         "rules": {
                     *           "max_sms_segments": 2,
                     *           "sms_segment_units": {
                     *             "GSM-7": {
                     *               "single": 160,
                     *               "part": 153
                     *             },
                     *             "UCS-2": {
                     *               "single": 70,
                     *               "part": 67
                     *             }
                     *           },
                     *           "template_placeholders": [
                     *             "{code}",
                     *             "{brand}",
                     *             "{minutes}"
                     *           ],
                     *           "phone_change_placeholders": [
                     *             "{brand}"
                     *           ],
                     *           "sized_with": {
                     *             "code_digits": 6,
                     *             "minutes": 5
                     *           },
                     *           "name_max_length": 200,
                     *           "app_hash_length": 11,
                     *           "built_in_template": "{code} is your {brand} verification code. It expires in {minutes} minutes. Never share it.",
                     *           "built_in_phone_change_text": "Your {brand} account was moved to another phone number. If you did not do this, contact {brand} at once.",
                     *           "warning_kinds": [
                     *             "phone",
                     *             "login_pin",
                     *             "transaction_pin",
                     *             "device_remove",
                     *             "delete",
                     *             "profile",
                     *             "export",
                     *             "new_device"
                     *           ],
                     *           "built_in_warning_texts": {
                     *             "phone": "A move of your {brand} account to another phone number was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.",
                     *             "login_pin": "A new login PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.",
                     *             "transaction_pin": "A new payment PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.",
                     *             "device_remove": "Removing a trusted device from your {brand} account was asked for. If this was not you, open the {brand} app on that device to cancel it.",
                     *             "delete": "Deleting your {brand} account was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.",
                     *             "profile": "A change of the name, email or birth date of your {brand} account was asked for. If this was not you, open the {brand} app to cancel it.",
                     *             "export": "A copy of your {brand} account’s data was asked for. If this was not you, open the {brand} app to cancel it.",
                     *             "new_device": "A new device signed in to your {brand} account with a code. If this was not you, open the {brand} app on your phone and choose \"Not me\"."
                     *           },
                     *           "in_force_within_seconds": 30
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            company: {
                                company_id: string;
                                /** @description The company’s name: {brand} in its texts */
                                name: string;
                                /** @description 1: a customer registering themselves must prove the phone first (contract 6) */
                                require_verified_phone: 0 | 1;
                                /** @description ISO 3166 alpha-2 codes SMS may go to, or "all" (every country: the favourite target of SMS pumping) */
                                sms_countries: "all" | string[];
                                sms_text: {
                                    /** @description The code text by BCP 47 language tag; none: the built-in English text */
                                    templates: {
                                        [key: string]: string;
                                    };
                                    /** @description The template sent when Accept-Language matches none; null: the built-in text */
                                    default_language: string | null;
                                    /** @description The Android SMS Retriever app hash, the last line but the WebOTP one */
                                    app_hash: string | null;
                                    /** @description The WebOTP domain: the last line reads @<domain> #<code> */
                                    webotp_domain: string | null;
                                };
                                /** @description 1: every login must carry a DPoP proof (contract 3.17) */
                                require_dpop: 0 | 1;
                                /** @description What sessions begun by an SMS code may approve per currency over 24 h (contract 3.15); none listed: nothing */
                                sms_payment_limit: {
                                    [key: string]: string;
                                };
                                /** @description Passkeys (contract 3.16): the relying party id and the origins allowed; null: passkeys are off */
                                webauthn: {
                                    rp_id: string;
                                    origins: string[];
                                } | null;
                                /** @description The warning the old number gets when a move of the account waits or is done, by language; none: the built-in English texts. The same as warning_texts.phone */
                                phone_change_texts: {
                                    [key: string]: string;
                                };
                                /** @description Each security warning’s SMS by language: a held change’s kind (phone, login_pin, transaction_pin, device_remove, delete, profile, export) or new_device (a device bound by an OTP login); none: the built-in English text */
                                warning_texts: {
                                    phone: {
                                        [key: string]: string;
                                    };
                                    login_pin: {
                                        [key: string]: string;
                                    };
                                    transaction_pin: {
                                        [key: string]: string;
                                    };
                                    device_remove: {
                                        [key: string]: string;
                                    };
                                    delete: {
                                        [key: string]: string;
                                    };
                                    profile: {
                                        [key: string]: string;
                                    };
                                    export: {
                                        [key: string]: string;
                                    };
                                    new_device: {
                                        [key: string]: string;
                                    };
                                };
                                limits: {
                                    sms_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    sms_per_prefix_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    sends_per_address_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    verifies_per_address: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                };
                                /** @description Each code text as sent with a 6-digit code, the name, the minutes and the autofill lines, by language; "built-in": the English text, sent while there is no default language */
                                sms_sizes: {
                                    [key: string]: {
                                        /** @description SMS the message takes (at most max_sms_segments is stored) */
                                        segments: number;
                                        /**
                                         * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                         * @enum {string}
                                         */
                                        encoding: "GSM-7" | "UCS-2";
                                        /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                        units: number;
                                    };
                                };
                                /** @description Each phone-change warning as sent with the name, by language */
                                phone_change_sizes: {
                                    [key: string]: {
                                        /** @description SMS the message takes (at most max_sms_segments is stored) */
                                        segments: number;
                                        /**
                                         * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                         * @enum {string}
                                         */
                                        encoding: "GSM-7" | "UCS-2";
                                        /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                        units: number;
                                    };
                                };
                                /** @description Each security warning as sent with the name, by warning and then by language */
                                warning_sizes: {
                                    phone: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    login_pin: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    transaction_pin: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    device_remove: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    delete: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    profile: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    export: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    new_device: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                };
                                /** @description What deserves a look: SMS to every country, a text over the limit stored before the checks (sent shortened), an app hash on a text of 2 SMS */
                                warnings: string[];
                                /** @description UNIX seconds of the last change (null: never changed) */
                                updated_at: number | null;
                            };
                            rules: {
                                /** @description A text whose message needs more SMS is refused: a message is never cut */
                                max_sms_segments: number;
                                /** @description Units of one SMS alone, and of each part of a longer message */
                                sms_segment_units: {
                                    "GSM-7": {
                                        single: number;
                                        part: number;
                                    };
                                    "UCS-2": {
                                        single: number;
                                        part: number;
                                    };
                                };
                                /** @description What a code text may hold; {code} it must */
                                template_placeholders: string[];
                                /** @description What a warning (of any kind) may hold; never {code} or 4 digits in a run */
                                phone_change_placeholders: string[];
                                /** @description The values a code text is sized with: the longest code and the code lifetime in minutes */
                                sized_with: {
                                    code_digits: number;
                                    minutes: number;
                                };
                                name_max_length: number;
                                app_hash_length: number;
                                /** @description The English code text of a company with none in the caller’s or its default language */
                                built_in_template: string;
                                /** @description The English warning to the old number once the account moved */
                                built_in_phone_change_text: string;
                                /** @description The warnings warning_texts holds */
                                warning_kinds: ("phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export" | "new_device")[];
                                /** @description The English warning of a company with none in the caller’s or its default language (phone: while a move waits) */
                                built_in_warning_texts: {
                                    phone: string;
                                    login_pin: string;
                                    transaction_pin: string;
                                    device_remove: string;
                                    delete: string;
                                    profile: string;
                                    export: string;
                                    new_device: string;
                                };
                                /** @description Every function sees a change within this time (its company cache) */
                                in_force_within_seconds: number;
                            };
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminCompanyUpdate: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sms_text": {
                 *         "templates": {
                 *           "hi": "{code} आपका {brand} कोड है। {minutes} मिनट में समाप्त।"
                 *         },
                 *         "default_language": "hi"
                 *       },
                 *       "limits": {
                 *         "sms_per_hour": 5000
                 *       },
                 *       "reason": "ticket 9120: Hindi text"
                 *     }
                 */
                "application/json": {
                    /** @description The company’s name ({brand}): every code and warning text must still fit 2 SMS with it */
                    name?: string | "" | null;
                    /** @description 1: customers prove the phone to register */
                    require_verified_phone?: (0 | 1) | "" | null;
                    /** @description ISO 3166 alpha-2 codes SMS may go to, or "all" for every country */
                    sms_countries?: ("all" | string[]) | "" | null;
                    /** @description 1: every login must carry a DPoP proof (API contract 3.17); a security setting, applied when another admin approves it */
                    require_dpop?: (0 | 1) | "" | null;
                    /** @description What sessions begun by an SMS code may approve per currency over 24 h (API contract 3.15), such as {"EUR": "100.00"}; "none": nothing. A security setting, applied when another admin approves it */
                    sms_payment_limit?: ("none" | {
                        [key: string]: string;
                    }) | "" | null;
                    sms_text?: {
                        /** @description The code text by language: {code} (required), {brand}, {minutes}; null removes one */
                        templates?: {
                            [key: string]: string | null;
                        };
                        /** @description A language with a template, sent when Accept-Language matches none; null removes it */
                        default_language?: string | null;
                        /** @description The Android SMS Retriever app hash (11 characters); null removes it */
                        app_hash?: string | null;
                        /** @description The WebOTP domain (such as wallet.example.com); null removes it */
                        webotp_domain?: string | null;
                    } | "" | null;
                    /** @description The warning the old number gets on a phone change (waiting or done), by language: {brand}, no {code}; null removes one. The same texts as warning_texts.phone */
                    phone_change_texts?: {
                        [key: string]: string | null;
                    } | "" | null;
                    /** @description The security warnings’ SMS by warning (a held change’s kind, or new_device: a device bound by an OTP login), then by language: {brand}, no {code} or run of 4 digits; null removes one */
                    warning_texts?: {
                        /** @description The phone warning by language: {brand}, no {code}; null removes one */
                        phone?: {
                            [key: string]: string | null;
                        };
                        /** @description The login_pin warning by language: {brand}, no {code}; null removes one */
                        login_pin?: {
                            [key: string]: string | null;
                        };
                        /** @description The transaction_pin warning by language: {brand}, no {code}; null removes one */
                        transaction_pin?: {
                            [key: string]: string | null;
                        };
                        /** @description The device_remove warning by language: {brand}, no {code}; null removes one */
                        device_remove?: {
                            [key: string]: string | null;
                        };
                        /** @description The delete warning by language: {brand}, no {code}; null removes one */
                        delete?: {
                            [key: string]: string | null;
                        };
                        /** @description The profile warning by language: {brand}, no {code}; null removes one */
                        profile?: {
                            [key: string]: string | null;
                        };
                        /** @description The export warning by language: {brand}, no {code}; null removes one */
                        export?: {
                            [key: string]: string | null;
                        };
                        /** @description The new_device warning by language: {brand}, no {code}; null removes one */
                        new_device?: {
                            [key: string]: string | null;
                        };
                    } | "" | null;
                    limits?: {
                        sms_per_hour?: number | null;
                        sms_per_prefix_per_hour?: number | null;
                        sends_per_address_per_hour?: number | null;
                        verifies_per_address?: number | null;
                    } | "" | null;
                    /** @description Passkeys (API contract 3.16): a security setting, applied when another admin approves it (company/approve) */
                    webauthn?: {
                        /** @description The relying party id: a domain the company’s apps and pages are associated with */
                        rp_id: string;
                        /** @description Web origins (https://host[:port]) and Android origins (android:apk-key-hash:<base64url SHA-256 of the signing certificate>) */
                        origins: string[];
                    } | "" | null;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Change of sms_text asked: another admin approves it (company/approve) before approve_by, or it is void",
                     *         "in_force_within_seconds": 30,
                     *         "pending": 1,
                     *         "grant_id": "7c2e9a4b1d3f5e6a8b0c1d2e3f4a5b6c",
                     *         "approve_by": 1767571200,
                     *         "company": {
                     *           "company_id": "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
                     *           "name": "Chai Pay",
                     *           "require_verified_phone": 1,
                     *           "require_dpop": 0,
                     *           "sms_payment_limit": {
                     *             "INR": "2000"
                     *           },
                     *           "sms_countries": [
                     *             "IN"
                     *           ],
                     *           "sms_text": {
                     *             "templates": {
                     *               "en": "{code} is your {brand} code. It expires in {minutes} minutes.",
                     *               "hi": "{code} आपका {brand} कोड है। {minutes} मिनट में समाप्त।"
                     *             },
                     *             "default_language": "hi",
                     *             "app_hash": "FA+9qCX9VSu",
                     *             "webotp_domain": null
                     *           },
                     *           "phone_change_texts": {
                     *             "hi": "आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।"
                     *           },
                     *           "warning_texts": {
                     *             "phone": {
                     *               "hi": "आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।"
                     *             },
                     *             "login_pin": {
                     *               "hi": "आपके {brand} खाते के लिए नया लॉगिन PIN माँगा गया। यह आपने नहीं किया तो {brand} ऐप खोलकर रद्द करें।"
                     *             },
                     *             "transaction_pin": {},
                     *             "device_remove": {},
                     *             "delete": {},
                     *             "profile": {},
                     *             "export": {},
                     *             "new_device": {}
                     *           },
                     *           "limits": {
                     *             "sms_per_hour": {
                     *               "value": 5000,
                     *               "default": 1000,
                     *               "source": "company",
                     *               "min": 1
                     *             },
                     *             "sms_per_prefix_per_hour": {
                     *               "value": 20,
                     *               "default": 20,
                     *               "source": "default",
                     *               "min": 0
                     *             },
                     *             "sends_per_address_per_hour": {
                     *               "value": 30,
                     *               "default": 30,
                     *               "source": "default",
                     *               "min": 0
                     *             },
                     *             "verifies_per_address": {
                     *               "value": 30,
                     *               "default": 30,
                     *               "source": "default",
                     *               "min": 0
                     *             }
                     *           },
                     *           "sms_sizes": {
                     *             "en": {
                     *               "segments": 1,
                     *               "encoding": "GSM-7",
                     *               "units": 66
                     *             },
                     *             "hi": {
                     *               "segments": 1,
                     *               "encoding": "UCS-2",
                     *               "units": 59
                     *             }
                     *           },
                     *           "phone_change_sizes": {
                     *             "hi": {
                     *               "segments": 2,
                     *               "encoding": "UCS-2",
                     *               "units": 91
                     *             }
                     *           },
                     *           "warning_sizes": {
                     *             "phone": {
                     *               "hi": {
                     *                 "segments": 2,
                     *                 "encoding": "UCS-2",
                     *                 "units": 91
                     *               }
                     *             },
                     *             "login_pin": {
                     *               "hi": {
                     *                 "segments": 2,
                     *                 "encoding": "UCS-2",
                     *                 "units": 100
                     *               }
                     *             },
                     *             "transaction_pin": {},
                     *             "device_remove": {},
                     *             "delete": {},
                     *             "profile": {},
                     *             "export": {},
                     *             "new_device": {}
                     *           },
                     *           "warnings": [],
                     *           "updated_at": 1767312000
                     *         },
                     *         "rules": {
                     *           "max_sms_segments": 2,
                     *           "sms_segment_units": {
                     *             "GSM-7": {
                     *               "single": 160,
                     *               "part": 153
                     *             },
                     *             "UCS-2": {
                     *               "single": 70,
                     *               "part": 67
                     *             }
                     *           },
                     *           "template_placeholders": [
                     *             "{code}",
                     *             "{brand}",
                     *             "{minutes}"
                     *           ],
                     *           "phone_change_placeholders": [
                     *             "{brand}"
                     *           ],
                     *           "sized_with": {
                     *             "code_digits": 6,
                     *             "minutes": 5
                     *           },
                     *           "name_max_length": 200,
                     *           "app_hash_length": 11,
                     *           "built_in_template": "{code} is your {brand} verification code. It expires in {minutes} minutes. Never share it.",
                     *           "built_in_phone_change_text": "Your {brand} account was moved to another phone number. If you did not do this, contact {brand} at once.",
                     *           "warning_kinds": [
                     *             "phone",
                     *             "login_pin",
                     *             "transaction_pin",
                     *             "device_remove",
                     *             "delete",
                     *             "profile",
                     *             "export",
                     *             "new_device"
                     *           ],
                     *           "built_in_warning_texts": {
                     *             "phone": "A move of your {brand} account to another phone number was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.",
                     *             "login_pin": "A new login PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.",
                     *             "transaction_pin": "A new payment PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.",
                     *             "device_remove": "Removing a trusted device from your {brand} account was asked for. If this was not you, open the {brand} app on that device to cancel it.",
                     *             "delete": "Deleting your {brand} account was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.",
                     *             "profile": "A change of the name, email or birth date of your {brand} account was asked for. If this was not you, open the {brand} app to cancel it.",
                     *             "export": "A copy of your {brand} account’s data was asked for. If this was not you, open the {brand} app to cancel it.",
                     *             "new_device": "A new device signed in to your {brand} account with a code. If this was not you, open the {brand} app on your phone and choose \"Not me\"."
                     *           },
                     *           "in_force_within_seconds": 30
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Functions keep a company this long (COMPANY_CACHE_SECONDS): every call sees the change within it */
                            in_force_within_seconds: number;
                            /** @description 1: a change of a security setting, asked, not yet made: another admin approves it (company/approve) */
                            pending: 0 | 1;
                            /** @description The grant of the change (asked, or approved by this call) */
                            grant_id?: string;
                            /** @description UNIX seconds: the grant is void, unapproved, from then on */
                            approve_by?: number;
                            company: {
                                company_id: string;
                                /** @description The company’s name: {brand} in its texts */
                                name: string;
                                /** @description 1: a customer registering themselves must prove the phone first (contract 6) */
                                require_verified_phone: 0 | 1;
                                /** @description ISO 3166 alpha-2 codes SMS may go to, or "all" (every country: the favourite target of SMS pumping) */
                                sms_countries: "all" | string[];
                                sms_text: {
                                    /** @description The code text by BCP 47 language tag; none: the built-in English text */
                                    templates: {
                                        [key: string]: string;
                                    };
                                    /** @description The template sent when Accept-Language matches none; null: the built-in text */
                                    default_language: string | null;
                                    /** @description The Android SMS Retriever app hash, the last line but the WebOTP one */
                                    app_hash: string | null;
                                    /** @description The WebOTP domain: the last line reads @<domain> #<code> */
                                    webotp_domain: string | null;
                                };
                                /** @description 1: every login must carry a DPoP proof (contract 3.17) */
                                require_dpop: 0 | 1;
                                /** @description What sessions begun by an SMS code may approve per currency over 24 h (contract 3.15); none listed: nothing */
                                sms_payment_limit: {
                                    [key: string]: string;
                                };
                                /** @description Passkeys (contract 3.16): the relying party id and the origins allowed; null: passkeys are off */
                                webauthn: {
                                    rp_id: string;
                                    origins: string[];
                                } | null;
                                /** @description The warning the old number gets when a move of the account waits or is done, by language; none: the built-in English texts. The same as warning_texts.phone */
                                phone_change_texts: {
                                    [key: string]: string;
                                };
                                /** @description Each security warning’s SMS by language: a held change’s kind (phone, login_pin, transaction_pin, device_remove, delete, profile, export) or new_device (a device bound by an OTP login); none: the built-in English text */
                                warning_texts: {
                                    phone: {
                                        [key: string]: string;
                                    };
                                    login_pin: {
                                        [key: string]: string;
                                    };
                                    transaction_pin: {
                                        [key: string]: string;
                                    };
                                    device_remove: {
                                        [key: string]: string;
                                    };
                                    delete: {
                                        [key: string]: string;
                                    };
                                    profile: {
                                        [key: string]: string;
                                    };
                                    export: {
                                        [key: string]: string;
                                    };
                                    new_device: {
                                        [key: string]: string;
                                    };
                                };
                                limits: {
                                    sms_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    sms_per_prefix_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    sends_per_address_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    verifies_per_address: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                };
                                /** @description Each code text as sent with a 6-digit code, the name, the minutes and the autofill lines, by language; "built-in": the English text, sent while there is no default language */
                                sms_sizes: {
                                    [key: string]: {
                                        /** @description SMS the message takes (at most max_sms_segments is stored) */
                                        segments: number;
                                        /**
                                         * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                         * @enum {string}
                                         */
                                        encoding: "GSM-7" | "UCS-2";
                                        /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                        units: number;
                                    };
                                };
                                /** @description Each phone-change warning as sent with the name, by language */
                                phone_change_sizes: {
                                    [key: string]: {
                                        /** @description SMS the message takes (at most max_sms_segments is stored) */
                                        segments: number;
                                        /**
                                         * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                         * @enum {string}
                                         */
                                        encoding: "GSM-7" | "UCS-2";
                                        /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                        units: number;
                                    };
                                };
                                /** @description Each security warning as sent with the name, by warning and then by language */
                                warning_sizes: {
                                    phone: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    login_pin: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    transaction_pin: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    device_remove: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    delete: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    profile: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    export: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    new_device: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                };
                                /** @description What deserves a look: SMS to every country, a text over the limit stored before the checks (sent shortened), an app hash on a text of 2 SMS */
                                warnings: string[];
                                /** @description UNIX seconds of the last change (null: never changed) */
                                updated_at: number | null;
                            };
                            rules: {
                                /** @description A text whose message needs more SMS is refused: a message is never cut */
                                max_sms_segments: number;
                                /** @description Units of one SMS alone, and of each part of a longer message */
                                sms_segment_units: {
                                    "GSM-7": {
                                        single: number;
                                        part: number;
                                    };
                                    "UCS-2": {
                                        single: number;
                                        part: number;
                                    };
                                };
                                /** @description What a code text may hold; {code} it must */
                                template_placeholders: string[];
                                /** @description What a warning (of any kind) may hold; never {code} or 4 digits in a run */
                                phone_change_placeholders: string[];
                                /** @description The values a code text is sized with: the longest code and the code lifetime in minutes */
                                sized_with: {
                                    code_digits: number;
                                    minutes: number;
                                };
                                name_max_length: number;
                                app_hash_length: number;
                                /** @description The English code text of a company with none in the caller’s or its default language */
                                built_in_template: string;
                                /** @description The English warning to the old number once the account moved */
                                built_in_phone_change_text: string;
                                /** @description The warnings warning_texts holds */
                                warning_kinds: ("phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export" | "new_device")[];
                                /** @description The English warning of a company with none in the caller’s or its default language (phone: while a move waits) */
                                built_in_warning_texts: {
                                    phone: string;
                                    login_pin: string;
                                    transaction_pin: string;
                                    device_remove: string;
                                    delete: string;
                                    profile: string;
                                    export: string;
                                    new_device: string;
                                };
                                /** @description Every function sees a change within this time (its company cache) */
                                in_force_within_seconds: number;
                            };
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With a refused SMS text: each code text’s size as measured, by language ("built-in": the English text) */
                            sms_sizes?: {
                                [key: string]: {
                                    segments: number;
                                    /** @enum {unknown} */
                                    encoding: "GSM-7" | "UCS-2";
                                    units: number;
                                };
                            };
                            /** @description With a refused SMS text: each phone-change warning’s size as measured, by language */
                            phone_change_sizes?: {
                                [key: string]: {
                                    segments: number;
                                    /** @enum {unknown} */
                                    encoding: "GSM-7" | "UCS-2";
                                    units: number;
                                };
                            };
                            /** @description With a refused SMS text: each security warning’s size as measured, by warning (a held change’s kind or new_device), then by language */
                            warning_sizes?: {
                                [key: string]: {
                                    [key: string]: {
                                        segments: number;
                                        /** @enum {unknown} */
                                        encoding: "GSM-7" | "UCS-2";
                                        units: number;
                                    };
                                };
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 3[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 20[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    adminCompanyApprove: {
        parameters: {
            query?: never;
            header: {
                /** @description The company, 32 hexadecimal characters */
                CompanyID: components["parameters"]["CompanyID"];
                /** @description Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a random value per request (a UUID v4; a guessable key sent without a token can be taken first by someone else). Within 1 day, the same key with the same body, company and session (the token's sid) gets the first answer again (same status and data, header `Idempotent-Replayed: true`), with no second SMS, count or write. The same key with another request: 409 code 20; while the first is still at work: 409 code 20 with `Retry-After`. Answers the service could not finish (503, 429) are not kept: the retry runs afresh, and the key stays bound to its body. An answer carrying a session, a refresh token or a phone proof is replayed for 5 minutes only, whatever headers come with the retry; after that the key answers 409 code 20, and after its end the same request is a new request (a registration sent again: 409 code 7). A request that ended its own session (logout, deletion) answers its retry with its first outcome, not 401. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "grant_id": "7c2e9a4b1d3f5e6a8b0c1d2e3f4a5b6c",
                 *       "reason": "ticket 9121: second admin for the Hindi text"
                 *     }
                 */
                "application/json": {
                    grant_id: string;
                    /** @description Why the employee acts, such as a ticket number: kept in the record of the action, never in an event */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": 1,
                     *       "error": [],
                     *       "data": {
                     *         "message": "Company settings updated: every function has them within 30 seconds",
                     *         "in_force_within_seconds": 30,
                     *         "pending": 0,
                     *         "grant_id": "7c2e9a4b1d3f5e6a8b0c1d2e3f4a5b6c",
                     *         "company": {
                     *           "company_id": "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
                     *           "name": "Chai Pay",
                     *           "require_verified_phone": 1,
                     *           "require_dpop": 0,
                     *           "sms_payment_limit": {
                     *             "INR": "2000"
                     *           },
                     *           "sms_countries": [
                     *             "IN"
                     *           ],
                     *           "sms_text": {
                     *             "templates": {
                     *               "en": "{code} is your {brand} code. It expires in {minutes} minutes.",
                     *               "hi": "{code} आपका {brand} कोड है। {minutes} मिनट में समाप्त।"
                     *             },
                     *             "default_language": "hi",
                     *             "app_hash": "FA+9qCX9VSu",
                     *             "webotp_domain": null
                     *           },
                     *           "phone_change_texts": {
                     *             "hi": "आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।"
                     *           },
                     *           "warning_texts": {
                     *             "phone": {
                     *               "hi": "आपका {brand} खाता दूसरे नंबर पर ले जाया गया। यह आपने नहीं किया तो {brand} से संपर्क करें।"
                     *             },
                     *             "login_pin": {
                     *               "hi": "आपके {brand} खाते के लिए नया लॉगिन PIN माँगा गया। यह आपने नहीं किया तो {brand} ऐप खोलकर रद्द करें।"
                     *             },
                     *             "transaction_pin": {},
                     *             "device_remove": {},
                     *             "delete": {},
                     *             "profile": {},
                     *             "export": {},
                     *             "new_device": {}
                     *           },
                     *           "limits": {
                     *             "sms_per_hour": {
                     *               "value": 5000,
                     *               "default": 1000,
                     *               "source": "company",
                     *               "min": 1
                     *             },
                     *             "sms_per_prefix_per_hour": {
                     *               "value": 20,
                     *               "default": 20,
                     *               "source": "default",
                     *               "min": 0
                     *             },
                     *             "sends_per_address_per_hour": {
                     *               "value": 30,
                     *               "default": 30,
                     *               "source": "default",
                     *               "min": 0
                     *             },
                     *             "verifies_per_address": {
                     *               "value": 30,
                     *               "default": 30,
                     *               "source": "default",
                     *               "min": 0
                     *             }
                     *           },
                     *           "sms_sizes": {
                     *             "en": {
                     *               "segments": 1,
                     *               "encoding": "GSM-7",
                     *               "units": 66
                     *             },
                     *             "hi": {
                     *               "segments": 1,
                     *               "encoding": "UCS-2",
                     *               "units": 59
                     *             }
                     *           },
                     *           "phone_change_sizes": {
                     *             "hi": {
                     *               "segments": 2,
                     *               "encoding": "UCS-2",
                     *               "units": 91
                     *             }
                     *           },
                     *           "warning_sizes": {
                     *             "phone": {
                     *               "hi": {
                     *                 "segments": 2,
                     *                 "encoding": "UCS-2",
                     *                 "units": 91
                     *               }
                     *             },
                     *             "login_pin": {
                     *               "hi": {
                     *                 "segments": 2,
                     *                 "encoding": "UCS-2",
                     *                 "units": 100
                     *               }
                     *             },
                     *             "transaction_pin": {},
                     *             "device_remove": {},
                     *             "delete": {},
                     *             "profile": {},
                     *             "export": {},
                     *             "new_device": {}
                     *           },
                     *           "warnings": [],
                     *           "updated_at": 1767312000
                     *         },
                     *         "rules": {
                     *           "max_sms_segments": 2,
                     *           "sms_segment_units": {
                     *             "GSM-7": {
                     *               "single": 160,
                     *               "part": 153
                     *             },
                     *             "UCS-2": {
                     *               "single": 70,
                     *               "part": 67
                     *             }
                     *           },
                     *           "template_placeholders": [
                     *             "{code}",
                     *             "{brand}",
                     *             "{minutes}"
                     *           ],
                     *           "phone_change_placeholders": [
                     *             "{brand}"
                     *           ],
                     *           "sized_with": {
                     *             "code_digits": 6,
                     *             "minutes": 5
                     *           },
                     *           "name_max_length": 200,
                     *           "app_hash_length": 11,
                     *           "built_in_template": "{code} is your {brand} verification code. It expires in {minutes} minutes. Never share it.",
                     *           "built_in_phone_change_text": "Your {brand} account was moved to another phone number. If you did not do this, contact {brand} at once.",
                     *           "warning_kinds": [
                     *             "phone",
                     *             "login_pin",
                     *             "transaction_pin",
                     *             "device_remove",
                     *             "delete",
                     *             "profile",
                     *             "export",
                     *             "new_device"
                     *           ],
                     *           "built_in_warning_texts": {
                     *             "phone": "A move of your {brand} account to another phone number was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.",
                     *             "login_pin": "A new login PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.",
                     *             "transaction_pin": "A new payment PIN for your {brand} account was asked for. It takes effect in a day. If this was not you, open the {brand} app to cancel it.",
                     *             "device_remove": "Removing a trusted device from your {brand} account was asked for. If this was not you, open the {brand} app on that device to cancel it.",
                     *             "delete": "Deleting your {brand} account was asked for. If this was not you, open the {brand} app to cancel it, or contact {brand} at once.",
                     *             "profile": "A change of the name, email or birth date of your {brand} account was asked for. If this was not you, open the {brand} app to cancel it.",
                     *             "export": "A copy of your {brand} account’s data was asked for. If this was not you, open the {brand} app to cancel it.",
                     *             "new_device": "A new device signed in to your {brand} account with a code. If this was not you, open the {brand} app on your phone and choose \"Not me\"."
                     *           },
                     *           "in_force_within_seconds": 30
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: 1;
                        error: unknown[];
                        data: {
                            message: string;
                            /** @description Functions keep a company this long (COMPANY_CACHE_SECONDS): every call sees the change within it */
                            in_force_within_seconds: number;
                            /** @description 1: a change of a security setting, asked, not yet made: another admin approves it (company/approve) */
                            pending: 0 | 1;
                            /** @description The grant of the change (asked, or approved by this call) */
                            grant_id?: string;
                            /** @description UNIX seconds: the grant is void, unapproved, from then on */
                            approve_by?: number;
                            company: {
                                company_id: string;
                                /** @description The company’s name: {brand} in its texts */
                                name: string;
                                /** @description 1: a customer registering themselves must prove the phone first (contract 6) */
                                require_verified_phone: 0 | 1;
                                /** @description ISO 3166 alpha-2 codes SMS may go to, or "all" (every country: the favourite target of SMS pumping) */
                                sms_countries: "all" | string[];
                                sms_text: {
                                    /** @description The code text by BCP 47 language tag; none: the built-in English text */
                                    templates: {
                                        [key: string]: string;
                                    };
                                    /** @description The template sent when Accept-Language matches none; null: the built-in text */
                                    default_language: string | null;
                                    /** @description The Android SMS Retriever app hash, the last line but the WebOTP one */
                                    app_hash: string | null;
                                    /** @description The WebOTP domain: the last line reads @<domain> #<code> */
                                    webotp_domain: string | null;
                                };
                                /** @description 1: every login must carry a DPoP proof (contract 3.17) */
                                require_dpop: 0 | 1;
                                /** @description What sessions begun by an SMS code may approve per currency over 24 h (contract 3.15); none listed: nothing */
                                sms_payment_limit: {
                                    [key: string]: string;
                                };
                                /** @description Passkeys (contract 3.16): the relying party id and the origins allowed; null: passkeys are off */
                                webauthn: {
                                    rp_id: string;
                                    origins: string[];
                                } | null;
                                /** @description The warning the old number gets when a move of the account waits or is done, by language; none: the built-in English texts. The same as warning_texts.phone */
                                phone_change_texts: {
                                    [key: string]: string;
                                };
                                /** @description Each security warning’s SMS by language: a held change’s kind (phone, login_pin, transaction_pin, device_remove, delete, profile, export) or new_device (a device bound by an OTP login); none: the built-in English text */
                                warning_texts: {
                                    phone: {
                                        [key: string]: string;
                                    };
                                    login_pin: {
                                        [key: string]: string;
                                    };
                                    transaction_pin: {
                                        [key: string]: string;
                                    };
                                    device_remove: {
                                        [key: string]: string;
                                    };
                                    delete: {
                                        [key: string]: string;
                                    };
                                    profile: {
                                        [key: string]: string;
                                    };
                                    export: {
                                        [key: string]: string;
                                    };
                                    new_device: {
                                        [key: string]: string;
                                    };
                                };
                                limits: {
                                    sms_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    sms_per_prefix_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    sends_per_address_per_hour: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                    verifies_per_address: {
                                        /** @description The limit in force */
                                        value: number;
                                        /** @description The configured default, in force while the company sets none */
                                        default: number;
                                        /**
                                         * @description company: the company’s own value; default: the configured one
                                         * @enum {string}
                                         */
                                        source: "company" | "default";
                                        /** @description The least value company/update takes (0: no limit) */
                                        min: number;
                                    };
                                };
                                /** @description Each code text as sent with a 6-digit code, the name, the minutes and the autofill lines, by language; "built-in": the English text, sent while there is no default language */
                                sms_sizes: {
                                    [key: string]: {
                                        /** @description SMS the message takes (at most max_sms_segments is stored) */
                                        segments: number;
                                        /**
                                         * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                         * @enum {string}
                                         */
                                        encoding: "GSM-7" | "UCS-2";
                                        /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                        units: number;
                                    };
                                };
                                /** @description Each phone-change warning as sent with the name, by language */
                                phone_change_sizes: {
                                    [key: string]: {
                                        /** @description SMS the message takes (at most max_sms_segments is stored) */
                                        segments: number;
                                        /**
                                         * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                         * @enum {string}
                                         */
                                        encoding: "GSM-7" | "UCS-2";
                                        /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                        units: number;
                                    };
                                };
                                /** @description Each security warning as sent with the name, by warning and then by language */
                                warning_sizes: {
                                    phone: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    login_pin: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    transaction_pin: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    device_remove: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    delete: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    profile: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    export: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                    new_device: {
                                        [key: string]: {
                                            /** @description SMS the message takes (at most max_sms_segments is stored) */
                                            segments: number;
                                            /**
                                             * @description UCS-2 as soon as one character is outside the GSM 7-bit alphabet
                                             * @enum {string}
                                             */
                                            encoding: "GSM-7" | "UCS-2";
                                            /** @description GSM-7 septets or UCS-2 (UTF-16) units of the whole message */
                                            units: number;
                                        };
                                    };
                                };
                                /** @description What deserves a look: SMS to every country, a text over the limit stored before the checks (sent shortened), an app hash on a text of 2 SMS */
                                warnings: string[];
                                /** @description UNIX seconds of the last change (null: never changed) */
                                updated_at: number | null;
                            };
                            rules: {
                                /** @description A text whose message needs more SMS is refused: a message is never cut */
                                max_sms_segments: number;
                                /** @description Units of one SMS alone, and of each part of a longer message */
                                sms_segment_units: {
                                    "GSM-7": {
                                        single: number;
                                        part: number;
                                    };
                                    "UCS-2": {
                                        single: number;
                                        part: number;
                                    };
                                };
                                /** @description What a code text may hold; {code} it must */
                                template_placeholders: string[];
                                /** @description What a warning (of any kind) may hold; never {code} or 4 digits in a run */
                                phone_change_placeholders: string[];
                                /** @description The values a code text is sized with: the longest code and the code lifetime in minutes */
                                sized_with: {
                                    code_digits: number;
                                    minutes: number;
                                };
                                name_max_length: number;
                                app_hash_length: number;
                                /** @description The English code text of a company with none in the caller’s or its default language */
                                built_in_template: string;
                                /** @description The English warning to the old number once the account moved */
                                built_in_phone_change_text: string;
                                /** @description The warnings warning_texts holds */
                                warning_kinds: ("phone" | "login_pin" | "transaction_pin" | "device_remove" | "delete" | "profile" | "export" | "new_device")[];
                                /** @description The English warning of a company with none in the caller’s or its default language (phone: while a move waits) */
                                built_in_warning_texts: {
                                    phone: string;
                                    login_pin: string;
                                    transaction_pin: string;
                                    device_remove: string;
                                    delete: string;
                                    profile: string;
                                    export: string;
                                    new_device: string;
                                };
                                /** @description Every function sees a change within this time (its company cache) */
                                in_force_within_seconds: number;
                            };
                        };
                    };
                };
            };
            /** @description BAD_REQUEST: 1 BAD_REQUEST, 2 COMPANY_ID_INVALID, 14 PHONE_NOT_VERIFIED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (1 | 2 | 14)[];
                        data: {
                            /** @constant */
                            message: "BAD_REQUEST";
                            errors?: components["schemas"]["FieldError"][];
                            /** @description With a refused SMS text: each code text’s size as measured, by language ("built-in": the English text) */
                            sms_sizes?: {
                                [key: string]: {
                                    segments: number;
                                    /** @enum {unknown} */
                                    encoding: "GSM-7" | "UCS-2";
                                    units: number;
                                };
                            };
                            /** @description With a refused SMS text: each phone-change warning’s size as measured, by language */
                            phone_change_sizes?: {
                                [key: string]: {
                                    segments: number;
                                    /** @enum {unknown} */
                                    encoding: "GSM-7" | "UCS-2";
                                    units: number;
                                };
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED: 4 UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 4[];
                        data: {
                            /** @constant */
                            message: "UNAUTHORIZED";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description FORBIDDEN: 5 FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 5[];
                        data: {
                            /** @constant */
                            message: "FORBIDDEN";
                            errors?: components["schemas"]["FieldError"][];
                            /**
                             * @description With code 5: what the request needs. strong: a session begun by PIN login on a settled device or by a passkey; strong_fresh: such a session proven under STEP_UP_MAX_AGE_SECONDS ago (POST /wallet/v3/auth/step_up); pin_setup: the user sets their PINs first
                             * @enum {unknown}
                             */
                            needs?: "strong" | "strong_fresh" | "pin_setup";
                        };
                    };
                };
            };
            /** @description NOT_FOUND: 3 COMPANY_NOT_FOUND, 6 NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (3 | 6)[];
                        data: {
                            /** @constant */
                            message: "NOT_FOUND";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description CONFLICT: 20 IDEMPOTENCY_KEY_REUSED, 23 STATE_CONFLICT */
            409: {
                headers: {
                    /** @description Seconds to wait, with code 20 when the first request with this Idempotency-Key is still at work (absent when the key was used with another request) */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: (20 | 23)[];
                        data: {
                            /** @constant */
                            message: "CONFLICT";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE: 13 PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 13[];
                        data: {
                            /** @constant */
                            message: "PAYLOAD_TOO_LARGE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description INTERNAL_SERVER_ERROR: 500 INTERNAL_ERROR */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 500[];
                        data: {
                            /** @constant */
                            message: "INTERNAL_SERVER_ERROR";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    openidConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (not in the envelope: the format verifiers expect) */
            200: {
                headers: {
                    /** @description public, max-age=300 */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "issuer": "https://auth.example.com",
                     *       "jwks_uri": "https://auth.example.com/.well-known/jwks.json",
                     *       "response_types_supported": [
                     *         "token"
                     *       ],
                     *       "subject_types_supported": [
                     *         "public"
                     *       ],
                     *       "id_token_signing_alg_values_supported": [
                     *         "ES256"
                     *       ],
                     *       "claims_supported": [
                     *         "iss",
                     *         "aud",
                     *         "sub",
                     *         "cid",
                     *         "sid",
                     *         "utp",
                     *         "amr",
                     *         "iat",
                     *         "exp"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** Format: uri */
                        issuer: string;
                        /** Format: uri */
                        jwks_uri: string;
                        response_types_supported?: string[];
                        subject_types_supported?: string[];
                        id_token_signing_alg_values_supported?: string[];
                        claims_supported?: string[];
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE (the keys cannot be read) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
    jwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success (not in the envelope: the format verifiers expect) */
            200: {
                headers: {
                    /** @description public, max-age=300 */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "EC",
                     *           "crv": "P-256",
                     *           "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                     *           "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
                     *           "kid": "Hx3oZ0yq1QmR2v5bT8wK4nC7dE6fG9hJ0kL1mP2sA3u",
                     *           "alg": "ES256",
                     *           "use": "sig"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        keys: ({
                            /** @constant */
                            kty: "EC";
                            /** @constant */
                            crv: "P-256";
                            x: string;
                            y: string;
                            /** @description The key’s RFC 7638 thumbprint: the `kid` of the tokens it signs */
                            kid: string;
                            /** @constant */
                            alg: "ES256";
                            /** @constant */
                            use: "sig";
                        } | {
                            /** @constant */
                            kty: "RSA";
                            /** @description The 2048-bit modulus, base64url */
                            n: string;
                            /** @description The public exponent, base64url (`AQAB`: 65537) */
                            e: string;
                            /** @description The key’s RFC 7638 thumbprint: the `kid` of the tokens it signs */
                            kid: string;
                            /** @constant */
                            alg: "RS256";
                            /** @constant */
                            use: "sig";
                        })[];
                    };
                };
            };
            /** @description SERVICE_UNAVAILABLE: 16 SERVICE_UNAVAILABLE (the keys cannot be read) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: 0;
                        error: 16[];
                        data: {
                            /** @constant */
                            message: "SERVICE_UNAVAILABLE";
                            errors?: components["schemas"]["FieldError"][];
                        };
                    };
                };
            };
        };
    };
}
