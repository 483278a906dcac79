/** The request log's limits the dashboard states, apart from the contract's schemas (decision 0175). */

/** The widest window a payload search (`q`) may cover: what it reads grows with the window (docs/decisions/0080-payload-search.md). */
export const PAYLOAD_SEARCH_MAX_DAYS = 7;
