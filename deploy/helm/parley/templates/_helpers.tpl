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

{{/* Settings of every Parley container: the ConfigMap, then the Secret. */}}
{{- define "parley.envFrom" -}}
- configMapRef:
    name: {{ include "parley.fullname" . }}
- secretRef:
    name: {{ include "parley.secretName" . }}
{{- end -}}

{{/* A restart when settings change: the pods carry a hash of the ConfigMap and Secret. */}}
{{- define "parley.configChecksum" -}}
checksum/config: {{ printf "%s%s" (toJson .Values.config) (toJson .Values.secrets) | sha256sum }}
{{- end -}}
