import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { MaxChars, MinChars, Nullable, Pattern } from '@app/contracts';

const FILENAME_MAX_CHARS = 255;
/** A media type without parameters (RFC 6838 names): the upload pins exactly this Content-Type. */
const MIMETYPE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$';
const SHARE_PASSWORD_MAX_CHARS = 1024;

/** GET /chat/files/upload (API-SPEC 4.4, CONTRACTS §8). */
export class UploadPermissionQuery {
  @ApiProperty({ maxLength: FILENAME_MAX_CHARS, pattern: '^[^/]+$', example: 'report.pdf' })
  @IsString()
  @MaxChars(FILENAME_MAX_CHARS)
  @Pattern('^[^/]+$')
  filename: string;

  @ApiProperty({
    description: 'Media type of the file; the upload must send exactly this Content-Type',
    pattern: MIMETYPE_PATTERN,
    example: 'application/pdf',
  })
  @IsString()
  @Pattern(MIMETYPE_PATTERN)
  mimetype: string;

  /** The end user the file belongs to; without it, any end user of the organization may attach it. */
  @ApiPropertyOptional({ description: 'End user the file belongs to' })
  @IsOptional()
  @IsString()
  user_id?: string;
}

/** The optional owner check of the file routes. */
export class FileOwnerQuery {
  @ApiPropertyOptional({ description: "When given, the file must be this end user's" })
  @IsOptional()
  @IsString()
  user_id?: string;
}

export class FileParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  file_id: string;
}

export class ShareLinkParams extends FileParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  link_id: string;
}

/** POST /chat/files/{file_id}/share_links (CONTRACTS §8). */
export class CreateShareLinkDto {
  /** Null or absent: the link never expires. */
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Null: never expires',
  })
  @IsOptional()
  @Nullable()
  @IsISO8601({ strict: true })
  expires_at?: string | null;

  /** Null or absent: anyone holding the link may download. */
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: SHARE_PASSWORD_MAX_CHARS,
    description: 'Downloads then need it in the header x-share-password; stored hashed',
  })
  @IsOptional()
  @Nullable()
  @IsString()
  @MinChars(1)
  @MaxChars(SHARE_PASSWORD_MAX_CHARS)
  password?: string | null;
}

/** GET /chat/files/upload answer (API-SPEC 2.12, CONTRACTS §8). */
export class UploadPermissionResponse {
  @ApiProperty({ description: 'Presigned address on the storage host: POST the file there.' })
  url: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Form fields to send with the upload, before the field file. x-amz-meta-file-id is the file id for ' +
      'message.file_ids.',
    example: { key: 'uploads/0193a3c6', 'x-amz-meta-file-id': '0193a3c6-0a8e-7d21-8f44-6b1c2d3e4f50' },
  })
  fields: Record<string, string>;
}
