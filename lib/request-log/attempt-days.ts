import "server-only";

/**
 * The request log's messageId and userId indexes are keyed by the attempt's UTC day before the id
 * (prisma/migrations/*_attempt_lookups_by_day; docs/webhooks.md#delivery-cost): a new attempt's
 * entries land among today's, a small and hot part of each index however long the log grows,
 * instead of on a random leaf of the whole log's. A lookup by messageId or userId names every day
 * the log holds (LOG_DAYS): one index descent per day.
 *
 * The expression is the one the indexes are built on, character for character, or the planner cannot
 * use them (without an alias, as an index definition writes it: bench/attempt-indexes.ts).
 */
export const attemptDay = (alias?: string) => `((${alias ? `${alias}.` : ""}started_at AT TIME ZONE 'UTC')::date)`;

/**
 * Every UTC day the log holds attempts of, as a date[]: from the day before the oldest attempt's
 * to the day after today. The oldest attempt is the first by id (a primary-key descent); a round
 * recorded late (docs/webhooks.md#endpoint-isolation) started at most its request timeout before
 * rows recorded ahead of it, hence the day before. The day after today covers a worker whose clock
 * runs ahead of the database's. An empty log gives an empty array, which matches nothing.
 */
export const LOG_DAYS = `ARRAY(SELECT generate_series(
    (SELECT ${attemptDay("o")} - 1 FROM attempts o ORDER BY o.id LIMIT 1),
    (now() AT TIME ZONE 'UTC')::date + 1, interval '1 day')::date)`;

/** The condition that lets a lookup by messageId or userId use its day-keyed index. */
export const inLogDays = (alias: string) => `${attemptDay(alias)} = ANY(${LOG_DAYS})`;
