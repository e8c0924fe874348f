// A user's status_id (API contract 6), on the user and on the phone claim they hold. Only an
// active user gets sessions and login codes; an operator disables (2); a registration that
// proves a phone held by a user who never proved it reclaims it from them (3); a user who asked
// for their account's deletion waits for its erasure (4), after which only a shell remains (5).
export const UserStatus = { ACTIVE: 1, DISABLED: 2, PHONE_RECLAIMED: 3, DELETION_REQUESTED: 4, ERASED: 5 } as const;

export type UserStatus = (typeof UserStatus)[keyof typeof UserStatus];
