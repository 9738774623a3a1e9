import { IsOptional, IsUUID } from 'class-validator';
import { HumanMessageDto } from './human-message.dto';
import { MultitaskStrategy, MultitaskStrategyOption, ThreadOwnerOption } from './reply-options';
import { Model, Nullable, OptionalModel, OptionalPositiveInt } from './rules';

/**
 * Options of a regenerate or an edit (CONTRACTS §19). With a live reply in the thread it is refused (409)
 * unless `multitask_strategy` is `interrupt`, which cancels the live reply first (§12).
 */
class BranchOptionsDto {
  @ThreadOwnerOption()
  user_id?: string | null;

  @OptionalPositiveInt()
  max_steps?: number | null;

  /** Only `interrupt` changes anything: `enqueue` and `reject` are refused while a reply is live. */
  @MultitaskStrategyOption()
  multitask_strategy?: MultitaskStrategy | null;
}

/** POST /chat/{thread_id}/regenerate body. */
export class RegenerateReplyDto {
  /** The assistant reply to replace; the last reply of the active branch when absent. */
  @IsOptional()
  @Nullable()
  @IsUUID()
  message_id?: string | null;

  @OptionalModel(() => BranchOptionsDto)
  options?: BranchOptionsDto | null;
}

/** POST /chat/{thread_id}/edit body. */
export class EditMessageDto {
  /** The user message to replace; it stays stored, on another branch. */
  @IsUUID()
  message_id: string;

  @Model(() => HumanMessageDto)
  message: HumanMessageDto;

  @OptionalModel(() => BranchOptionsDto)
  options?: BranchOptionsDto | null;
}

/** PUT /chat/{thread_id}/branches/active body. */
export class SetActiveBranchDto {
  /** A leaf of the thread, as GET /chat/{thread_id}/branches names it. */
  @IsUUID()
  leaf_message_id: string;
}
