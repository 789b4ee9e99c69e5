#!/usr/bin/env bash
# Builds the API image and runs it as production would, against this machine's PostgreSQL and
# Redis (see verify.mjs for every check). What CI runs; an operator can run the same:
#
#   scripts/container/verify.sh               # build, then verify
#   SKIP_BUILD=1 scripts/container/verify.sh  # verify the image already built
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_podman
run_check verify.mjs "container build and verification"
