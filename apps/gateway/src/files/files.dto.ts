import { IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { MaxChars, MinChars, Pattern } from '@app/contracts';

export const FILENAME_MAX_CHARS = 255;
/** A media type without parameters (RFC 6838 names): the upload pins exactly this Content-Type. */
export const MIMETYPE_PATTERN =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
export const SHARE_PASSWORD_MAX_CHARS = 1024;

/** GET /chat/files/upload (API-SPEC 4.4, CONTRACTS §8). */
export class UploadPermissionQuery {
  @IsString()
  @MaxChars(FILENAME_MAX_CHARS)
  @Pattern(/^[^/]+$/)
  filename: string;

  @IsString()
  @Pattern(MIMETYPE_PATTERN)
  mimetype: string;

  /** The end user the file belongs to; without it, any end user of the organization may attach it. */
  @IsOptional()
  @IsString()
  user_id?: string;
}

/** The optional owner check of the file routes. */
export class FileOwnerQuery {
  @IsOptional()
  @IsString()
  user_id?: string;
}

export class FileParams {
  @IsUUID('all')
  file_id: string;
}

export class ShareLinkParams extends FileParams {
  @IsUUID('all')
  link_id: string;
}

/** POST /chat/files/{file_id}/share_links (CONTRACTS §8). */
export class CreateShareLinkDto {
  /** Null or absent: the link never expires. */
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string | null;

  /** Null or absent: anyone holding the link may download. */
  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(SHARE_PASSWORD_MAX_CHARS)
  password?: string | null;
}
