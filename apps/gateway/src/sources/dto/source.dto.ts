import { IsArray, IsObject, IsOptional, IsString } from 'class-validator';
import { MaxChars, MaxItems, MinChars, MinItems, Nullable, OneOf, UniqueItems } from '@app/contracts';
import { STORES, Store } from './connection.dto';

const SOURCE_SCOPES = ['organization', 'private'] as const;

/** POST /dc/sources (spec 4.6); `config` is checked against the store by `parseStoreConfig`. */
export class CreateSourceDto {
  @IsString()
  @MinChars(1)
  connection_id: string;

  @OneOf(STORES)
  store: Store;

  @IsObject()
  config: Record<string, unknown>;

  @OneOf(SOURCE_SCOPES)
  scope: (typeof SOURCE_SCOPES)[number];

  @IsOptional()
  @Nullable()
  @IsString()
  @MinChars(1)
  @MaxChars(200)
  name?: string | null;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(256)
  user_id?: string;
}

/** PUT /dc/sources/{source_pid} (spec 4.6): every field optional. */
export class UpdateSourceDto {
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(200)
  name?: string;

  @IsOptional()
  @IsString()
  @MinChars(1)
  connection_id?: string;

  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(256)
  user_id?: string;
}

/** POST /dc/sources/{source_pid}/documents: uploaded files of the caller (CONTRACTS §8). */
export class AddDocumentsDto {
  @IsArray()
  @MinItems(1)
  @MaxItems(100)
  @UniqueItems()
  @IsString({ each: true })
  file_ids: string[];

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(256)
  user_id?: string;
}

export class SourcePidParams {
  @IsString()
  @MaxChars(64)
  source_pid: string;
}
