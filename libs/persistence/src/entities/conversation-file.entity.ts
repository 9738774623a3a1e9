import { Entity } from 'typeorm';
import {
  BigintColumn,
  CreatedAtColumn,
  IdColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
  UuidColumn,
} from './columns';

type FileOrigin = 'user' | 'agent';
/** `pending` from the upload permission until the object is seen on the storage host. */
type FileStatus = 'pending' | 'uploaded';

/** A file of a conversation (API-SPEC 2.5): uploaded by an end user, or written by an agent. */
@Entity('conversation_files')
export class ConversationFileEntity {
  /** The file id clients put in `file_ids` (the `x-amz-meta-file-id` of the upload). */
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  /** End user who uploaded it; null when the permission named none (usable by the organization's users). */
  @TextColumn({ name: 'user_id', nullable: true })
  userId: string | null;

  @TextColumn()
  name: string;

  /** As given for the upload, then as the storage host reports it. */
  @TextColumn()
  mimetype: string;

  /** Bytes, as the storage host reports them; 0 until uploaded. */
  @BigintColumn({ default: 0 })
  size: number;

  @TextColumn({ name: 'storage_key' })
  storageKey: string;

  @TextColumn()
  origin: FileOrigin;

  @TextColumn()
  status: FileStatus;

  /** The assistant message that produced an agent's file; user files are listed by `messages.file_ids`. */
  @UuidColumn({ name: 'message_id', nullable: true })
  messageId: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn({ name: 'uploaded_at', nullable: true })
  uploadedAt: Date | null;
}
