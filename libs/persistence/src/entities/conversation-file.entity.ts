import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './column-types';

type FileOrigin = 'user' | 'agent';
/** `pending` from the upload permission until the object is seen on the storage host. */
type FileStatus = 'pending' | 'uploaded';

/** A file of a conversation (API-SPEC 2.5): uploaded by an end user, or written by an agent. */
@Entity('conversation_files')
export class ConversationFileEntity {
  /** The file id clients put in `file_ids` (the `x-amz-meta-file-id` of the upload). */
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** End user who uploaded it; null when the permission named none (usable by the organization's users). */
  @Column({ name: 'user_id', type: 'text', nullable: true })
  userId: string | null;

  @Column({ type: 'text' })
  name: string;

  /** As given for the upload, then as the storage host reports it. */
  @Column({ type: 'text' })
  mimetype: string;

  /** Bytes, as the storage host reports them; 0 until uploaded. */
  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  size: number;

  @Column({ name: 'storage_key', type: 'text' })
  storageKey: string;

  @Column({ type: 'text' })
  origin: FileOrigin;

  @Column({ type: 'text' })
  status: FileStatus;

  /** The assistant message that produced an agent's file; user files are listed by `messages.file_ids`. */
  @Column({ name: 'message_id', type: 'uuid', nullable: true })
  messageId: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'uploaded_at', type: 'timestamptz', nullable: true })
  uploadedAt: Date | null;
}
