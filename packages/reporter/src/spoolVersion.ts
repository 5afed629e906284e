/** The spool format's version (header `v`); a replay refuses other versions. */
export const SPOOL_VERSION = 1;
