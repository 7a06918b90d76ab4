/**
 * The largest id a row can have: the id columns are `integer`, 32 bits on Postgres (SQLite's hold
 * 64). An id from outside is compared with it before it reaches a query, which Postgres would
 * otherwise refuse as out of range.
 */
export const MAX_ROW_ID = 2_147_483_647;
