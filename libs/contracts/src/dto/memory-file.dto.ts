import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { MaxChars, Nullable, PatternRule, Rules } from './rules';
import {
  MEMORY_CONTENT_MAX_CHARS,
  MEMORY_FOLDER_RULE,
  MEMORY_FOLDER_SOURCE,
  MEMORY_FILE_NAMESPACE_MAX_CHARS,
  MEMORY_PATH_MAX_CHARS,
  MEMORY_PATH_RULE,
  MEMORY_PATH_SOURCE,
  MEMORY_PURPOSE_MAX_CHARS,
} from './memory-path';

/*
 * `namespace` is optional to the validation below on purpose: a missing one is the 400 "Missing namespace" of
 * spec 4.5 / §5.5, raised by the use case, not a 422. The document says it is required all the same.
 */
const NAMESPACE = ApiProperty({
  required: true,
  description: 'The memory namespace. Required: missing answers 400 {"detail": "Missing namespace"}.',
});

/** `namespace` of a query on memory files (a query string has no null). */
const NamespaceQuery = () =>
  Rules(NAMESPACE, IsOptional(), IsString(), MaxChars(MEMORY_FILE_NAMESPACE_MAX_CHARS));

/** `path` of one memory file. */
const MemoryFilePath = () =>
  Rules(IsString(), MaxChars(MEMORY_PATH_MAX_CHARS), PatternRule(MEMORY_PATH_SOURCE, MEMORY_PATH_RULE));

/** GET /memory/file and DELETE /memory/file. */
export class MemoryFileQuery {
  @NamespaceQuery()
  namespace?: string;

  @MemoryFilePath()
  path: string;

  /** Accepted and never used to pick the namespace (spec 4.5). */
  @IsOptional()
  @IsString()
  user_id?: string;
}

/** GET /memory/files. */
export class MemoryFilesQuery {
  @NamespaceQuery()
  namespace?: string;

  @IsOptional()
  @IsString()
  @PatternRule(MEMORY_FOLDER_SOURCE, MEMORY_FOLDER_RULE)
  folder?: string;

  @IsOptional()
  @IsString()
  user_id?: string;
}

/** PUT /memory/file: creates (no version) or updates the file whose version is given. */
export class WriteMemoryFileDto {
  @NAMESPACE
  @IsOptional()
  @Nullable()
  @IsString()
  @MaxChars(MEMORY_FILE_NAMESPACE_MAX_CHARS)
  namespace?: string;

  @MemoryFilePath()
  path: string;

  @IsString()
  @MaxChars(MEMORY_CONTENT_MAX_CHARS)
  content: string;

  @IsString()
  @MaxChars(MEMORY_PURPOSE_MAX_CHARS)
  purpose: string;

  /** The version last read; absent or null to create. */
  @IsOptional()
  @Nullable()
  @IsString()
  version?: string | null;
}
