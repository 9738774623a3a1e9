import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './column-types';

@Entity('organizations')
export class OrganizationEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ type: 'text', unique: true })
  name: string;

  /** Tokens the organization may spend in all; null means no limit. */
  @Column({ name: 'token_budget', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  tokenBudget: number | null;

  @Column({ name: 'tokens_used', type: 'bigint', default: 0, transformer: bigintAsNumber })
  tokensUsed: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
