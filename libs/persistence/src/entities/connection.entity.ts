import { Column, Entity, PrimaryColumn } from 'typeorm';

type ConnectionKind = 'googledrive' | 'sharepoint' | 'draganddrop';
type ConnectionStatus = 'active' | 'expired' | 'error';

/**
 * Credentials a store needs (CONTRACTS §9), the end user's who made it (`created_by`): only they see it and build
 * sources on it. The credentials column is ciphertext only.
 */
@Entity('connections')
export class ConnectionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  kind: ConnectionKind;

  @Column({ type: 'text', default: 'active' })
  status: ConnectionStatus;

  /** Why the connection stopped working, for the sources' readable reason. */
  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  @Column({ type: 'boolean', default: false })
  inoperative: boolean;

  /** The end user who owns the connection. */
  @Column({ name: 'created_by', type: 'text' })
  createdBy: string;

  /** AES-256-GCM envelope of the credentials JSON (libs/knowledge CredentialCipher); null for draganddrop. */
  @Column({ name: 'credentials_encrypted', type: 'text', nullable: true })
  credentialsEncrypted: string | null;

  /** When the access token expires. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'checked_at', type: 'timestamptz', nullable: true })
  checkedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  /** Deleted connections stay for the archived sources that name them. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
