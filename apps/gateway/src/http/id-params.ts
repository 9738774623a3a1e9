import { IsUUID } from 'class-validator';

/** A path `{id}` that must be a UUID (422 `uuid_parsing` at ["path", "id"] otherwise). */
export class UuidIdParams {
  @IsUUID()
  id: string;
}
