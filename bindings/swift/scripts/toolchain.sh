#!/usr/bin/env bash
# Makes sure a Swift toolchain exists for building the Swift package, and prints its root.
#
#   toolchain.sh            prints the root folder (building it first when it is missing)
#
# Debian 12 has no Swift, so the toolchain lives in a Debian trixie root made with debootstrap
# (installed with apt-get when missing), holding `swiftlang`, `libc6-dev`, `libstdc++-14-dev`,
# `ca-certificates` and `python3`. The mirror is the one the host's apt sources already name. The root is cached under
# ${XDG_CACHE_HOME:-~/.cache}/mcpweft/swift-root (MCPWEFT_SWIFT_ROOT overrides it); it is built
# in a temporary folder that is renamed at the end, so a killed run never looks complete.
# Building takes about a minute and 2.6 GB; a second run returns at once. All mounting happens
# in a private mount namespace (unshare), so nothing stays mounted afterwards.
#
# Run commands in the root with run.sh beside this script.
set -euo pipefail

suite=trixie
# libc6-dev for swiftc's libc module; libstdc++-14-dev for executables linked with
# --static-swift-stdlib (the benchmark's echo server); ca-certificates for HTTPS clients in tests
# and tools; python3 for the Python examples a Swift client spawns in interop.sh. The stamp lists
# them, so adding one here installs it into roots made before.
packages=(swiftlang libc6-dev libstdc++-14-dev ca-certificates python3)
root="${MCPWEFT_SWIFT_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpweft/swift-root}"
stamp="$root/.mcpweft-toolchain"

log() { echo "toolchain.sh: $*" >&2; }

# Installs packages with apt-get in the root $1 (inside a private mount namespace).
apt_install() {
  cp /etc/resolv.conf "$1/etc/resolv.conf"
  unshare --mount --fork /bin/sh -eu -c '
    root="$1"; shift
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
      sh -eu -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends \"\$@\" && apt-get clean" sh "$@"
  ' sh "$@"
}

# The stamp is written last, inside the temporary folder, so it marks a complete root. Its
# second line lists the packages; a root that lacks some of them gets them installed in place.
if [[ -f "$stamp" ]]; then
  read -r -a installed <<<"$(sed -n 2p "$stamp")"
  missing=()
  for package in "${packages[@]}"; do
    [[ " ${installed[*]} " == *" $package "* ]] || missing+=("$package")
  done
  if ((${#missing[@]})); then
    log "adding ${missing[*]} to $root"
    steps="$(mktemp)"
    if ! apt_install "$root" "${missing[@]}" >"$steps" 2>&1; then
      tail -n 30 "$steps" >&2
      rm -f "$steps"
      log "apt-get install in the root failed"
      exit 1
    fi
    rm -f "$steps"
    printf '%s\n%s\n' "$(head -n 1 "$stamp")" "${installed[*]} ${missing[*]}" >"$stamp"
  fi
  echo "$root"
  exit 0
fi

if [[ "$(id -u)" != 0 ]]; then
  log "building the Swift root needs root (debootstrap, chroot, unshare)"
  exit 1
fi

# Prints the first Debian mirror named by the host's apt sources (deb822 or one-line style),
# leaving out the security archive.
host_mirror() {
  local files=()
  [[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] && files+=("$f")
  done
  ((${#files[@]})) || return 1
  awk '
    /^[[:space:]]*#/ { next }
    /^deb[[:space:]]/ {
      for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break }
      next
    }
    /^URIs:/ { for (i = 2; i <= NF; i++) print $i }
  ' "${files[@]}" | grep -v -e security -e '^$' | grep -E '^(https?|file)://' | head -n 1
}

if ! command -v debootstrap >/dev/null; then
  log "installing debootstrap"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
fi

mirror="$(host_mirror)" || true
if [[ -z "$mirror" ]]; then
  log "no Debian mirror found in the host's apt sources"
  exit 1
fi

parent="$(dirname "$root")"
mkdir -p "$parent"
free_mb="$(df -Pm "$parent" | awk 'NR == 2 { print $4 }')"
if ((free_mb < 3500)); then
  log "only ${free_mb} MB free in $parent; the Swift root needs about 3.5 GB while it is built"
  exit 1
fi
tmp="$(mktemp -d "$parent/swift-root.tmp.XXXXXX")"
steps="$tmp.log"
trap 'rm -rf --one-file-system "$tmp" "$steps"' EXIT
# Prints the end of the step log and fails.
failed() {
  tail -n 30 "$steps" >&2
  log "$1 failed (the lines above are the end of its log)"
  exit 1
}

log "bootstrapping Debian $suite into $tmp (mirror from the host's apt sources)"
debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$steps" 2>&1 || failed debootstrap

log "installing ${packages[*]}"
apt_install "$tmp" "${packages[@]}" >>"$steps" 2>&1 || failed "apt-get install in the root"

swift_version="$("$(dirname "${BASH_SOURCE[0]}")/run.sh" --root "$tmp" swift --version 2>&1 | head -n 1)" ||
  failed "swift --version"
log "$swift_version"
printf '%s\n%s\n' "$swift_version" "${packages[*]}" >"$tmp/.mcpweft-toolchain"

rm -rf --one-file-system "$root" "$steps"
mv "$tmp" "$root"
trap - EXIT
echo "$root"
