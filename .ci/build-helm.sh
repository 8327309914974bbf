#!/usr/bin/env bash
# Builds Helm v3 from the Go module proxy into a cache outside the
# repository (a test tool, not part of kplane) and prints the directory that
# holds the helm binary. The Helm end-to-end test finds it there through
# KPLANE_HELM (see .ci/run) or on PATH.
set -euo pipefail
version="${KPLANE_HELM_VERSION:-v3.17.3}"
tooldir="${KPLANE_TOOL_CACHE:-$HOME/.cache/kplane-ci}/helm-$version"
if [ ! -x "$tooldir/helm" ]; then
  echo "ci: building helm $version from the Go module proxy into $tooldir" >&2
  mkdir -p "$tooldir"
  start=$(date +%s)
  GOBIN="$tooldir" go install \
    -ldflags "-X helm.sh/helm/v3/internal/version.version=$version" \
    "helm.sh/helm/v3/cmd/helm@$version" >&2
  echo "ci: built helm $version in $(( $(date +%s) - start ))s" >&2
fi
echo "$tooldir"
