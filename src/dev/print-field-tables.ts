import { KINDS } from '../kinds.js';
import { fieldTables } from './field-tables.js';

/** `npm run fields`: the fields a client may send, read from the kinds' declarations (src/kinds.ts). */
console.log(fieldTables(KINDS.flatMap((kind) => kind.fieldSets ?? [])));
