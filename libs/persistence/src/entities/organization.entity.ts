import { CreateDateColumn, Entity } from 'typeorm';
import { BigintColumn, IdColumn, TextColumn } from './columns';

@Entity('organizations')
export class OrganizationEntity {
  @IdColumn()
  id: string;

  @TextColumn({ unique: true })
  name: string;

  /** Tokens the organization may spend in all; null means no limit. */
  @BigintColumn({ name: 'token_budget', nullable: true })
  tokenBudget: number | null;

  @BigintColumn({ name: 'tokens_used', default: 0 })
  tokensUsed: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
