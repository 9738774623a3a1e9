import { IsOptional, IsString } from 'class-validator';
import { ApprovalDecision } from '../responses/message.response';
import { MaxChars, MinChars, Nullable, OneOf } from './rules';

const APPROVAL_DECISIONS = ['approve', 'deny'] as const satisfies readonly ApprovalDecision[];
export const APPROVAL_REASON_MAX_CHARS = 2000;

/** POST /chat/messages/{message_id}/approvals body (CONTRACTS §19): a person's decision on a waiting tool call. */
export class DecideApprovalDto {
  /** The waiting call, as its `approval.requested` line names it. */
  @IsString()
  @MinChars(1)
  @MaxChars(200)
  call_id: string;

  @OneOf(APPROVAL_DECISIONS)
  decision: ApprovalDecision;

  /** Given to the model with a denial. */
  @IsOptional()
  @Nullable()
  @IsString()
  @MaxChars(APPROVAL_REASON_MAX_CHARS)
  reason?: string | null;

  /** When given, the message's thread must be this end user's. */
  @IsOptional()
  @Nullable()
  @IsString()
  user_id?: string | null;
}
