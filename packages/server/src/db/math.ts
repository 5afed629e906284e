import type { Expression, Kysely, RawBuilder } from 'kysely';
import { dialectOf } from './database.js';

/** log2(value) in SQL, a double (see DialectSupport.log2 for how close it is to `Math.log2`). */
export const log2 = (db: Kysely<any>, value: Expression<number>): RawBuilder<number> => dialectOf(db).log2(value);
