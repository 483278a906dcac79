/** The owner the fresh-install story creates; other stories reuse its saved session. */
export const OWNER = { email: "owner@example.com", password: "correct horse battery" };
export const STORAGE_STATE = "e2e/.auth/owner.json";
export const ARTIFACTS = "e2e/artifacts";
