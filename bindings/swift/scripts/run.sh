#!/usr/bin/env bash
# Runs a command inside the Swift root made by toolchain.sh.
#
#   run.sh [--root ROOT] [--bind DIR]... COMMAND [ARG...]
#
# The command runs in a private mount namespace (unshare --mount), chrooted into the
# root, with /proc and /dev mounted and these folders bind-mounted at the same absolute paths:
# the repository, CARGO_TARGET_DIR when it lies outside it, and every --bind DIR. Paths inside
# them (rpaths, SwiftPM's package folder) thus mean the same inside and out. The working
# folder is kept when it lies in a bound folder, else it is the repository. The environment is
# emptied but for PATH, HOME, TERM and the variables whose names start with MCPWEFT_ or MCP_.
# Every step execs the next, so the command keeps this script's process id (signals and
# memory readings reach it), and stdin, stdout, stderr and the exit status are its own;
# nothing stays mounted after it ends, however it ends. The root is built first when missing
# (toolchain.sh, about a minute).
set -euo pipefail

if [[ "${1:-}" == --in-namespace ]]; then
  # The second half, already inside the new mount namespace: mount, chroot, run.
  root="$2" cwd="$3" nbinds="$4"
  shift 4
  binds=("${@:1:nbinds}")
  shift "$nbinds"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  for dir in "${binds[@]}"; do
    mkdir -p "$root$dir"
    mount --rbind "$dir" "$root$dir"
  done
  # "$@" is the environment (NAME=VALUE...) followed by the command.
  exec chroot "$root" /usr/bin/env -i "$@"
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
root=""
binds=("$repo")
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) root="$2"; shift 2 ;;
    --bind) binds+=("$(cd "$2" && pwd)"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [[ $# -eq 0 ]]; then
  sed -n '4p' "$0" | sed 's/^# //' >&2
  exit 2
fi
[[ -n "$root" ]] || root="$("$here/toolchain.sh")"

if [[ -n "${CARGO_TARGET_DIR:-}" ]]; then
  target="$CARGO_TARGET_DIR"
  [[ "$target" == /* ]] || target="$repo/$target"
  mkdir -p "$target"
  target="$(cd "$target" && pwd)"
  [[ "$target/" == "$repo/"* ]] || binds+=("$target")
fi

cwd="$repo"
for dir in "${binds[@]}"; do
  if [[ "$PWD/" == "$dir/"* ]]; then
    cwd="$PWD"
    break
  fi
done

environment=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "HOME=/root" "TERM=${TERM:-dumb}")
while IFS= read -r name; do
  environment+=("$name=${!name}")
done < <(compgen -e | grep -E '^(MCPWEFT|MCP)_' || true)

exec unshare --mount --propagation private "$here/run.sh" --in-namespace "$root" "$cwd" "${#binds[@]}" "${binds[@]}" \
  "${environment[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
