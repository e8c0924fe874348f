// The data a hostile-input run sets up (tests/harness/hostile-input-property.ts, setUpHostileFixture)
// and the generators draw on: tokens to misuse, ids to name, numbers to register, cursors to forge.

/** What the generators may use from the data a run has set up. */
export interface HostileFixture {
  /** The company under test: its stored data must not change on a refusal. */
  companyId: string;
  /** Another active company. */
  otherCompanyId: string;
  /** Valid access tokens: of the company's customer and employee, and of the other company. */
  tokens: string[];
  /** User ids of those accounts. */
  userIds: string[];
  /** National numbers valid for +1: registered ones and a free one. */
  phoneNumbers: string[];
  /** Cursors signed by the service, for lists of the company and of the other company. */
  cursors: string[];
}
