import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsObject, IsOptional, IsString } from 'class-validator';
import { MESSAGE_FILE_IDS_MAX_ITEMS } from './human-message.dto';
import { MaxChars, MaxItems, MinChars, MinItems, OneOf, OptionalPositiveInt } from './rules';

export const AI_SDK_CHAT_ID_MAX_CHARS = 128;
const AI_SDK_TRIGGERS = ['submit-message', 'regenerate-message'] as const;
type AiSdkTrigger = (typeof AI_SDK_TRIGGERS)[number];

/**
 * One UIMessage of the AI SDK as its client sends it; Parley reads the text parts of the last user one, or the
 * approval answers (`addToolApprovalResponse`) of a last assistant one.
 */
export interface AiSdkUiMessage {
  id?: string;
  role?: string;
  parts?: {
    type?: string;
    text?: unknown;
    /** `approval-responded` once the user answered a `tool-approval-request`. */
    state?: unknown;
    approval?: { id?: unknown; approved?: unknown; reason?: unknown };
  }[];
}

/**
 * POST /ai-sdk/chat: what the AI SDK's DefaultChatTransport sends (CONTRACTS §17), `agent_id` and `user_id`
 * riding in the transport's `body`. Parley holds the history, so of `messages` only the last user message
 * counts; its shape is checked where it is read.
 */
export class AiSdkChatDto {
  @ApiProperty({
    description:
      "The client's chat id; per end user, bound to the thread its first message starts. The id of one of the " +
      "end user's threads continues that thread.",
    maxLength: 128,
  })
  @IsString()
  @MinChars(1)
  @MaxChars(AI_SDK_CHAT_ID_MAX_CHARS)
  id: string;

  @ApiProperty({
    description: 'UIMessages, oldest first; the text parts of the last user message are the new message.',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
  })
  @IsArray()
  @MinItems(1)
  @IsObject({ each: true })
  messages: AiSdkUiMessage[];

  @ApiProperty({ enum: AI_SDK_TRIGGERS })
  @OneOf(AI_SDK_TRIGGERS)
  trigger: AiSdkTrigger;

  @ApiPropertyOptional({
    description:
      'Sent by the client with regenerate-message: the reply to regenerate (the messageId of its start ' +
      'chunk); the last reply when absent or not a reply of the chat.',
  })
  @IsOptional()
  @IsString()
  messageId?: string;

  @ApiPropertyOptional({
    description: 'The agent of a new chat (required then); a known chat keeps its own.',
  })
  @IsOptional()
  @IsString()
  agent_id?: string;

  @ApiPropertyOptional({
    description: 'The end user: required with a service key, implied by an end-user token.',
  })
  @IsOptional()
  @IsString()
  user_id?: string;

  @ApiPropertyOptional({
    description:
      'Our extension: uploaded files for this message (the two-step upload), in the transport body.',
    type: [String],
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxItems(MESSAGE_FILE_IDS_MAX_ITEMS)
  file_ids?: string[];

  @ApiPropertyOptional({
    description:
      "Our extension: the agent version that answers this message (GET /agents/{id}/versions), in the transport's " +
      'body; unknown: 422. Omitted: the latest version.',
  })
  @OptionalPositiveInt()
  agent_version?: number | null;
}
