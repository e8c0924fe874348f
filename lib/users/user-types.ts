// The two kinds of account. Kept apart from the registration schema so that modules needing
// only these numbers (OTP, referrals) do not build that schema at load.
export const UserType = { EMPLOYEE: 1, CUSTOMER: 2 } as const;
