# Shared by the container scripts: podman set up for a machine without a Docker engine, and the
# names of the images. Sourced, not run.
#
# podman runs rootful with runc and cgroupfs (no systemd here). Its default resource limits for a
# container (nofile 1048576) are above what an unprivileged-resource host allows, so a
# containers.conf of this run's own lowers them to the shell's limits.

: "${BOXOFFICE_NODE_VERSION:=24.21.0}"
: "${BOXOFFICE_BASE_IMAGE:=localhost/boxoffice-node:${BOXOFFICE_NODE_VERSION}-slim}"
: "${BOXOFFICE_IMAGE:=localhost/boxoffice-api:local}"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() {
  log "FAILED: $*"
  exit 1
}

# Installs podman and runc from Debian when missing (CI machines start bare).
ensure_podman() {
  if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
    log 'installing podman and runc'
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc uidmap >/dev/null
  fi
  if [[ -z "${CONTAINERS_CONF:-}" ]]; then
    local nofile nproc
    nofile="$(ulimit -Hn)"
    # A higher process limit is refused by runc here, even below the hard limit.
    nproc=4096
    [[ "$nofile" == unlimited ]] && nofile=65536
    CONTAINERS_CONF="$(mktemp --tmpdir boxoffice-containers-XXXXXX.conf)"
    cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
    export CONTAINERS_CONF
  fi
}

# The certificate bundle this machine trusts (it may hold a TLS-intercepting proxy's CA): given to
# the build's install steps as a secret, never copied into an image.
ca_bundle() {
  local candidate
  for candidate in "${NODE_EXTRA_CA_CERTS:-}" "$(npm config get cafile 2>/dev/null || true)" \
    /etc/ssl/certs/ca-certificates.crt; do
    if [[ -n "$candidate" && "$candidate" != null && "$candidate" != undefined && -f "$candidate" ]]; then
      printf '%s\n' "$candidate"
      return
    fi
  done
}

image_size_mb() {
  podman image inspect --format '{{.Size}}' "$1" | awk '{ printf "%d\n", $1 / 1000000 }'
}

# Builds the image unless SKIP_BUILD=1, then runs one of the checks (a script beside this one)
# against this machine's PostgreSQL and Redis, and says how long it all took.
run_check() {
  local script="$1" what="$2" started=$SECONDS
  [[ "${SKIP_BUILD:-}" == 1 ]] || "$repo_root/scripts/container/build.sh"
  export BOXOFFICE_IMAGE
  export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
  node "$repo_root/scripts/container/$script"
  log "$what: $((SECONDS - started)) s"
}
