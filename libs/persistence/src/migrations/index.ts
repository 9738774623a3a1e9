import { InitialSchema1763800000000 } from './1763800000000-initial-schema';

/** Every migration in order; a merged migration is never edited, a change is a new file. */
export const MIGRATIONS = [InitialSchema1763800000000];
