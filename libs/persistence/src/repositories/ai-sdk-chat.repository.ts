import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';

/** One end user of one organization: chat ids are theirs alone. */
export interface ChatOwner {
  orgId: string;
  userId: string;
}

/** Every AI SDK chat message asks it: one statement under the wall, in its own round trip. */
const FIND_CHAT_THREAD = preparedStatement({
  name: 'ai_sdk_chat_thread',
  text: `SELECT c.thread_id FROM ai_sdk_chats c JOIN threads t ON t.id = c.thread_id
         WHERE c.org_id = $1 AND c.user_id = $2 AND c.chat_id = $3 AND t.archived_at IS NULL`,
});

const BIND_CHAT = preparedStatement({
  name: 'ai_sdk_chat_bind',
  text: `INSERT INTO ai_sdk_chats (org_id, user_id, chat_id, thread_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id, user_id, chat_id) DO UPDATE SET thread_id = EXCLUDED.thread_id, created_at = now()`,
});

/** AI SDK chat id → Parley thread, per end user (table ai_sdk_chats), under the tenant wall. */
@Injectable()
export class AiSdkChatRepository {
  constructor(private readonly db: DataSource) {}

  /** The thread the owner's chat id is bound to, when it is still visible (not archived). */
  async findThreadId(owner: ChatOwner, chatId: string): Promise<string | null> {
    const rows = await runPreparedAsTenant<{ thread_id: string }>(this.db, owner, FIND_CHAT_THREAD, [
      owner.orgId,
      owner.userId,
      chatId,
    ]);
    return rows[0]?.thread_id ?? null;
  }

  /** Binds the chat id to a thread; an id whose thread was archived gets the new one. */
  async bind(owner: ChatOwner, chatId: string, threadId: string): Promise<void> {
    await runPreparedAsTenant(this.db, owner, BIND_CHAT, [owner.orgId, owner.userId, chatId, threadId]);
  }
}
