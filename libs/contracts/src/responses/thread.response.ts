/** Wire shapes of API-SPEC 2.1 (full thread) and 2.2 (thread summary), and their mappers. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  DATE_TIME,
  AgentRecord,
  AgentRef,
  ConversationFileResponse,
  MessageRecord,
  MessageResponse,
  toMessageResponse,
} from './message.response';

type ThreadInceptionValue = 'conversational' | 'routine' | 'eval';

/** The fields a thread and its summary open with, in this order. */
abstract class ThreadHead {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'Quarterly report' })
  name: string;
  @ApiProperty(DATE_TIME)
  created_at: string;
  @ApiProperty({ description: 'True while any of its messages is pending or running.' })
  live: boolean;
}

/** API-SPEC 2.1: exactly these fields. */
export class ThreadResponse extends ThreadHead {
  @ApiProperty()
  starred: boolean;
  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'Project the thread is filed under.' })
  project_id: string | null;
  @ApiProperty({ type: [MessageResponse], description: 'Oldest first.' })
  messages: MessageResponse[];
  @ApiProperty({ enum: ['conversational', 'routine', 'eval'], readOnly: true })
  inception: ThreadInceptionValue;
}

/** API-SPEC 2.2: items of GET /chat and the answer of PUT /chat/{thread_id}. */
export class ThreadSummaryResponse extends ThreadHead {
  @ApiProperty({ type: AgentRef })
  agent: AgentRef;
  @ApiProperty()
  starred: boolean;
}

/** The stored fields the mappers read (structurally a ThreadEntity). */
interface ThreadRecord {
  id: string;
  name: string;
  createdAt: Date;
  starred: boolean;
  projectId: string | null;
  inception: ThreadInceptionValue;
}

/**
 * A thread with its messages, oldest first. `agents` holds the writers of its assistant messages (archived
 * ones included, to render "ARCHIVED"); `files` the files of each message by message id.
 */
export function toThreadResponse(
  thread: ThreadRecord,
  messages: MessageRecord[],
  agents: AgentRecord[],
  files: ReadonlyMap<string, ConversationFileResponse[]> = new Map(),
): ThreadResponse {
  const agentById = new Map(agents.map((agent) => [agent.id, agent]));
  return {
    id: thread.id,
    name: thread.name,
    created_at: thread.createdAt.toISOString(),
    live: messages.some((message) => message.live),
    starred: thread.starred,
    project_id: thread.projectId,
    messages: messages.map((message) =>
      toMessageResponse(
        message,
        message.agentId ? agentById.get(message.agentId) : null,
        files.get(message.id) ?? [],
      ),
    ),
    inception: thread.inception,
  };
}

/** A thread as the listing shows it; `live` is whether any of its messages is pending or running. */
export function toThreadSummaryResponse(
  thread: ThreadRecord,
  live: boolean,
  agent: Pick<AgentRecord, 'id' | 'name'>,
): ThreadSummaryResponse {
  return {
    id: thread.id,
    name: thread.name,
    created_at: thread.createdAt.toISOString(),
    live,
    agent: { id: agent.id, name: agent.name },
    starred: thread.starred,
  };
}
