import { Column, ColumnOptions, ColumnType, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './column-types';

/** A column's options but its type, which the decorator's name gives. */
type OptionsBesideType = Omit<ColumnOptions, 'type'>;

const columnOf =
  (type: ColumnType) =>
  (options: OptionsBesideType = {}): PropertyDecorator =>
    Column({ type, ...options });

/** The row's id: a UUID the service makes (newId). */
export const IdColumn = (): PropertyDecorator => PrimaryColumn('uuid');

/** The organization the row belongs to: the column the tenant wall (row-level security) compares. */
export const OrgIdColumn = (): PropertyDecorator => Column({ name: 'org_id', type: 'uuid' });

/** When the row was inserted: PostgreSQL's `now()` unless the insert gives it. */
export const CreatedAtColumn = (): PropertyDecorator =>
  Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' });

/** When the row last changed: PostgreSQL's `now()` on insert, then whatever each update sets. */
export const UpdatedAtColumn = (): PropertyDecorator =>
  Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' });

export const TextColumn = columnOf('text');
export const UuidColumn = columnOf('uuid');
export const IntegerColumn = columnOf('integer');
export const BooleanColumn = columnOf('boolean');
export const JsonbColumn = columnOf('jsonb');
export const TimestampColumn = columnOf('timestamptz');

/** A bigint, read as a number (bigintAsNumber). */
export const BigintColumn = (options: Omit<OptionsBesideType, 'transformer'> = {}): PropertyDecorator =>
  Column({ type: 'bigint', transformer: bigintAsNumber, ...options });
