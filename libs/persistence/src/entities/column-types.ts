import { ValueTransformer } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** PostgreSQL returns bigint as a string; our counters stay well inside Number.MAX_SAFE_INTEGER. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** Time-ordered ids (UUIDv7): new rows land at the right end of the primary-key index. */
export const newId = (): string => uuidv7();
