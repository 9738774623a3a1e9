import { Column, Entity, PrimaryColumn } from 'typeorm';

type TemplateScope = 'private' | 'organization';

@Entity('query_templates')
export class QueryTemplateEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  orgId: string;

  /** End user who made it; a private template is visible to this user only. */
  @Column({ name: 'created_by', type: 'text' })
  createdBy: string;

  @Column({ name: 'updated_by', type: 'text' })
  updatedBy: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'jsonb', default: {} })
  metadata: Record<string, unknown>;

  @Column({ name: 'icon_uri', type: 'text', default: '' })
  iconUri: string;

  @Column({ name: 'icon_color', type: 'text', default: '' })
  iconColor: string;

  @Column({ name: 'background_color', type: 'text', default: '' })
  backgroundColor: string;

  @Column({ type: 'text', default: 'private' })
  scope: TemplateScope;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
