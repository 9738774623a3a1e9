import { Entity } from 'typeorm';
import {
  BooleanColumn,
  CreatedAtColumn,
  IdColumn,
  OrgIdColumn,
  TextColumn,
  TimestampColumn,
} from './columns';

type ConnectionKind = 'googledrive' | 'sharepoint' | 'draganddrop';
type ConnectionStatus = 'active' | 'expired' | 'error';

/**
 * Credentials a store needs (CONTRACTS §9), the end user's who made it (`created_by`): only they see it and build
 * sources on it. The credentials column is ciphertext only.
 */
@Entity('connections')
export class ConnectionEntity {
  @IdColumn()
  id: string;

  @OrgIdColumn()
  orgId: string;

  @TextColumn()
  name: string;

  @TextColumn()
  kind: ConnectionKind;

  @TextColumn({ default: 'active' })
  status: ConnectionStatus;

  /** Why the connection stopped working, for the sources' readable reason. */
  @TextColumn({ name: 'status_reason', nullable: true })
  statusReason: string | null;

  @BooleanColumn({ default: false })
  inoperative: boolean;

  /** The end user who owns the connection. */
  @TextColumn({ name: 'created_by' })
  createdBy: string;

  /** AES-256-GCM envelope of the credentials JSON (libs/knowledge CredentialCipher); null for draganddrop. */
  @TextColumn({ name: 'credentials_encrypted', nullable: true })
  credentialsEncrypted: string | null;

  /** When the access token expires. */
  @TimestampColumn({ name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @TimestampColumn({ name: 'checked_at', nullable: true })
  checkedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  /** Deleted connections stay for the archived sources that name them. */
  @TimestampColumn({ name: 'deleted_at', nullable: true })
  deletedAt: Date | null;
}
