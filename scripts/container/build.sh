#!/usr/bin/env bash
# Builds the API image from apps/api/Dockerfile with podman, on the stand-in Node.js base (built
# first when missing, see base-image.sh), and checks its size against the budget.
#
#   scripts/container/build.sh        # → $BOXOFFICE_IMAGE (localhost/boxoffice-api:local)
#
# --format docker keeps the HEALTHCHECK (the OCI format has none). The machine's CA bundle is given
# to the steps that reach the npm registry as a build secret, so it is not in any layer.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_podman
"$repo_root/scripts/container/base-image.sh"

# The image's size, in MB as podman counts it (base included), must stay below this.
: "${BOXOFFICE_IMAGE_BUDGET_MB:=325}"

started=$SECONDS
secret=()
ca="$(ca_bundle)"
[[ -n "$ca" ]] && secret=(--secret "id=ca-certificates,src=$ca")
log "building $BOXOFFICE_IMAGE on $BOXOFFICE_BASE_IMAGE"
podman build --quiet --format docker --network host \
  --build-arg "NODE_IMAGE=$BOXOFFICE_BASE_IMAGE" "${secret[@]}" \
  -f "$repo_root/apps/api/Dockerfile" -t "$BOXOFFICE_IMAGE" "$repo_root" >/dev/null
size="$(image_size_mb "$BOXOFFICE_IMAGE")"
base="$(image_size_mb "$BOXOFFICE_BASE_IMAGE")"
log "built $BOXOFFICE_IMAGE in $((SECONDS - started)) s: $size MB ($base MB of it the base)"
((size <= BOXOFFICE_IMAGE_BUDGET_MB)) || fail "the image is $size MB, over its budget of $BOXOFFICE_IMAGE_BUDGET_MB MB"
