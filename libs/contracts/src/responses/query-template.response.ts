/** API-SPEC 2.10: every field present. */
export interface QueryTemplateResponse {
  id: string;
  created_by: string;
  organization_id: string;
  name: string;
  description: string;
  content: string;
  metadata: Record<string, unknown>;
  icon_uri: string;
  icon_color: string;
  background_color: string;
  scope: 'private' | 'organization';
  created_at: string;
  updated_at: string;
  updated_by: string;
}

export interface QueryTemplateRecord {
  id: string;
  orgId: string;
  createdBy: string;
  updatedBy: string;
  name: string;
  description: string;
  content: string;
  metadata: Record<string, unknown>;
  iconUri: string;
  iconColor: string;
  backgroundColor: string;
  scope: 'private' | 'organization';
  createdAt: Date;
  updatedAt: Date;
}

export function toQueryTemplateResponse(template: QueryTemplateRecord): QueryTemplateResponse {
  return {
    id: template.id,
    created_by: template.createdBy,
    organization_id: template.orgId,
    name: template.name,
    description: template.description,
    content: template.content,
    metadata: template.metadata,
    icon_uri: template.iconUri,
    icon_color: template.iconColor,
    background_color: template.backgroundColor,
    scope: template.scope,
    created_at: template.createdAt.toISOString(),
    updated_at: template.updatedAt.toISOString(),
    updated_by: template.updatedBy,
  };
}
