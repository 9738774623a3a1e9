import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Index('api_keys_org_id_idx')
  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  @Column({ type: 'text', default: '' })
  name: string;

  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  @Column({ name: 'key_hash', type: 'char', length: 64, unique: true })
  keyHash: string;

  /** `sk-svc` for keys made by this service, `legacy` for imported keys made before the prefix existed. */
  @Column({ type: 'text' })
  kind: 'sk-svc' | 'legacy';

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
