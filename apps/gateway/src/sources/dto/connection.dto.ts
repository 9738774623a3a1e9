import { IsDateString, IsOptional, IsString } from 'class-validator';
import { MaxChars, MinChars, Model, OneOf } from '@app/contracts';

export const STORES = ['googledrive', 'sharepoint', 'draganddrop'] as const;
export type Store = (typeof STORES)[number];

const USER_ID_MAX = 256;

/** OAuth credentials of a store; stored encrypted, never returned. */
class ConnectionCredentialsDto {
  @IsString()
  @MinChars(1)
  @MaxChars(8192)
  access_token: string;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(8192)
  refresh_token?: string;

  @IsOptional()
  @IsDateString()
  expires_at?: string;
}

/** POST /dc/connections (CONTRACTS §9). */
export class CreateConnectionDto {
  @IsString()
  @MinChars(1)
  @MaxChars(200)
  name: string;

  @OneOf(STORES)
  kind: Store;

  @IsOptional()
  @Model(() => ConnectionCredentialsDto)
  credentials?: ConnectionCredentialsDto;

  @IsOptional()
  @IsString()
  @MinChars(1)
  @MaxChars(USER_ID_MAX)
  user_id?: string;
}
