{{/* The release's prefix of every object name (Helm's usual fullname, 63 characters at most). */}}
{{- define "model-gateway.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "<fullname>-<component>": call with (list $ "control-plane"). */}}
{{- define "model-gateway.componentName" -}}
{{- printf "%s-%s" (include "model-gateway.fullname" (index . 0)) (index . 1) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object of the release. */}}
{{- define "model-gateway.commonLabels" -}}
app.kubernetes.io/part-of: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* What selects one plane's pods (deploy/k8s's app.kubernetes.io/name, plus the release): (list $ "data-plane"). */}}
{{- define "model-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ index . 1 }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
{{- end -}}

{{/* A plane's object labels: (list $ "data-plane"). */}}
{{- define "model-gateway.componentLabels" -}}
app.kubernetes.io/name: {{ index . 1 }}
{{ include "model-gateway.commonLabels" (index . 0) }}
{{- end -}}

{{/* The data plane's ServiceAccount name: the one named, else the release's when the chart creates it, else none (the namespace's default). */}}
{{- define "model-gateway.dataPlaneServiceAccount" -}}
{{- $account := .Values.dataPlane.serviceAccount -}}
{{- if $account.name -}}
{{- $account.name -}}
{{- else if $account.create -}}
{{- include "model-gateway.componentName" (list . "data-plane") -}}
{{- end -}}
{{- end -}}

{{/* A pod's labels: its selector labels and the release's part-of. (list $ "data-plane") */}}
{{- define "model-gateway.podLabels" -}}
{{ include "model-gateway.selectorLabels" . }}
app.kubernetes.io/part-of: {{ (index . 0).Chart.Name }}
{{- end -}}

{{/* repository:tag, the tag defaulting to the chart's appVersion: (list $ .Values.dataPlane.image). */}}
{{- define "model-gateway.image" -}}
{{- $image := index . 1 -}}
{{- printf "%s:%s" $image.repository (default (index . 0).Chart.AppVersion $image.tag) -}}
{{- end -}}

{{/* The host:port data planes dial: the control-plane Service's gRPC port. */}}
{{- define "model-gateway.controlPlaneAddress" -}}
{{- printf "%s:%v" (include "model-gateway.componentName" (list . "control-plane")) .Values.controlPlane.ports.grpc -}}
{{- end -}}

{{/* Pod fields both planes share: security context, no service-account token, /tmp, scheduling. (list $ .Values.dataPlane) */}}
{{- define "model-gateway.podCommon" -}}
{{- $root := index . 0 -}}
{{- $plane := index . 1 -}}
automountServiceAccountToken: false
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $plane.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $plane.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $plane.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
