{{/* Name of the release's objects: the release name, with the chart name when it is not in it already. */}}
{{- define "parley.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "parley.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Pods of one component (gateway, worker, migrate) of this release. */}}
{{- define "parley.selectorLabels" -}}
app.kubernetes.io/name: {{ .context.Chart.Name }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "parley.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "parley.secretName" -}}
{{- default (include "parley.fullname" .) .Values.existingSecret -}}
{{- end -}}

{{/*
The secrets each workload reads, and no other (README "Deploying"): the gateway serves uploads, connections, the
queue dashboard and platform skills; the worker runs models, syncs and tools; only the migrate Job gets
DATABASE_MIGRATION_URL. DATABASE_URL and REDIS_URL must exist; the rest are optional.
*/}}
{{- define "parley.secretKeys.gateway" -}}
DATABASE_URL REDIS_URL STORAGE_SIGNING_SECRET CREDENTIALS_KEYS S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY GOOGLE_CLIENT_SECRET MS_CLIENT_SECRET EMBEDDINGS_API_KEY ADMIN_PASSWORD INTERNAL_TOKEN
{{- end -}}
{{- define "parley.secretKeys.worker" -}}
DATABASE_URL REDIS_URL STORAGE_SIGNING_SECRET CREDENTIALS_KEYS S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY GOOGLE_CLIENT_SECRET MS_CLIENT_SECRET EMBEDDINGS_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY
{{- end -}}
{{- define "parley.secretKeys.migrate" -}}
DATABASE_URL DATABASE_MIGRATION_URL
{{- end -}}

{{/* Settings of a Parley container (dict "context" . "component" "gateway"|"worker"): the ConfigMap, and one
environment variable per secret the component reads, each taken from the Secret by key. */}}
{{- define "parley.envFrom" -}}
- configMapRef:
    name: {{ include "parley.fullname" .context }}
{{- end -}}

{{- define "parley.secretEnv" -}}
{{- $secret := default (include "parley.secretName" .context) .secretName -}}
{{- range $key := splitList " " (include (printf "parley.secretKeys.%s" .component) .context) }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
      {{- if not (has $key (list "DATABASE_URL" "REDIS_URL")) }}
      optional: true
      {{- end }}
{{- end }}
{{- end -}}

{{/* A restart when settings change: the pods carry a hash of the ConfigMap and Secret. */}}
{{- define "parley.configChecksum" -}}
checksum/config: {{ printf "%s%s" (toJson .Values.config) (toJson .Values.secrets) | sha256sum }}
{{- end -}}
