#!/usr/bin/env bash
# A rolling deploy under load, measured: two replicas of the API image behind nginx (Debian's
# nginx as a process, with deploy/nginx.conf), reads and check-ins through nginx while each
# replica in turn is stopped with SIGTERM and started again. Fails on any failed request or any
# check-in answered 201 and not in the database (see rolling-deploy.mjs). Prints its figures.
#
#   scripts/container/rolling-deploy.sh               # build the image, then the deploy
#   SKIP_BUILD=1 scripts/container/rolling-deploy.sh  # with the image already built
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_podman
command -v nginx >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
}
run_check rolling-deploy.mjs "rolling deploy test"
