import { Column, CreateDateColumn, Entity, Index } from 'typeorm';
import { IdColumn, OrgIdColumn, TextColumn, TimestampColumn } from './columns';

@Entity('api_keys')
export class ApiKeyEntity {
  @IdColumn()
  id: string;

  @Index('api_keys_org_id_idx')
  @OrgIdColumn()
  orgId: string;

  @TextColumn({ default: '' })
  name: string;

  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  @Column({ name: 'key_hash', type: 'char', length: 64, unique: true })
  keyHash: string;

  /** `sk-svc` for keys made by this service, `legacy` for imported keys made before the prefix existed. */
  @TextColumn()
  kind: 'sk-svc' | 'legacy';

  @TimestampColumn({ name: 'revoked_at', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
