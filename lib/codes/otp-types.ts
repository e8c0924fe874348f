// What a code is for (API contract 3.2), apart from the code's phone rules: reset_pin names a proof's
// purpose without loading the numbering plan.

export const OtpType = { LOGIN: 1, PHONE_VERIFICATION: 2, WALLET_TOP_UP: 3, KYC_DOCUMENT: 4 } as const;
export type OtpType = (typeof OtpType)[keyof typeof OtpType];
