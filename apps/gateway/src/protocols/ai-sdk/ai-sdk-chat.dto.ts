import { IsOptional, IsString } from 'class-validator';
import { AI_SDK_CHAT_ID_MAX_CHARS, MaxChars, MinChars } from '@app/contracts';

export class AiSdkChatParams {
  /** The client's chat id, as POST /ai-sdk/chat received it. */
  @IsString()
  @MinChars(1)
  @MaxChars(AI_SDK_CHAT_ID_MAX_CHARS)
  id: string;
}

export class AiSdkChatOwnerQuery {
  /** The end user: required with a service key, implied by an end-user token. */
  @IsOptional()
  @IsString()
  user_id?: string;
}
