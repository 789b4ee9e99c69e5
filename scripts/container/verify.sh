#!/usr/bin/env bash
# Builds the API image and runs it as production would, against this machine's PostgreSQL and
# Redis (see verify.mjs for every check). What CI runs; an operator can run the same:
#
#   scripts/container/verify.sh               # build, then verify
#   SKIP_BUILD=1 scripts/container/verify.sh  # verify the image already built
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_podman
started=$SECONDS
[[ "${SKIP_BUILD:-}" == 1 ]] || "$repo_root/scripts/container/build.sh"
export BOXOFFICE_IMAGE
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
node "$repo_root/scripts/container/verify.mjs"
log "container build and verification: $((SECONDS - started)) s"
