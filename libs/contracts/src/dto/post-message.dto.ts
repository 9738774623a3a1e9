import { HumanMessageDto } from './human-message.dto';
import {
  MemoryNamespaceOption,
  MultitaskStrategy,
  MultitaskStrategyOption,
  ThreadOwnerOption,
} from './reply-options';
import { Model, OptionalModel, OptionalPositiveInt } from './rules';

export { MULTITASK_STRATEGIES, type MultitaskStrategy } from './reply-options';

/** Options of a follow-up message (CONTRACTS §4, §12). */
class PostMessageOptionsDto {
  @ThreadOwnerOption()
  user_id?: string | null;

  @OptionalPositiveInt()
  max_steps?: number | null;

  /** Accepted only when equal to the thread's namespace: a thread's namespace never changes (spec 4.2 rule 4). */
  @MemoryNamespaceOption()
  memory_namespace?: string | null;

  /** `enqueue` when absent or null. */
  @MultitaskStrategyOption()
  multitask_strategy?: MultitaskStrategy | null;

  /** Runs this reply with that version of the thread's agent (CONTRACTS §23); absent: the latest. */
  @OptionalPositiveInt()
  agent_version?: number | null;
}

/** POST /chat/{thread_id} body. */
export class PostMessageDto {
  @Model(() => HumanMessageDto)
  message: HumanMessageDto;

  @OptionalModel(() => PostMessageOptionsDto)
  options?: PostMessageOptionsDto | null;
}
