#!/usr/bin/env bash
# Starts a cluster on 127.0.0.1 and keeps it up until it is killed (TERM/INT) or a member dies:
# redis-server on a Unix socket, N server processes, and haproxy balancing round robin without
# session affinity in front of them.
#
#   up.sh BALANCER_PORT N COMMAND [ARG...]
#
# Each member runs `COMMAND ARG... PORT` with MCPWEFT_REDIS_URL (the Redis of this cluster) and
# MCPWEFT_ALLOWED_HOSTS (the balancer's host names) in its environment. Files (configuration,
# logs, Redis's append-only file) go to a temporary folder, removed on exit unless
# CLUSTER_KEEP=1. Prints `cluster: ready` on stderr once every member and the balancer listen.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -lt 3 ]]; then
  sed -n '6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
balancer_port="$1"
members="$2"
shift 2
"$here/setup.sh"

dir="$(mktemp -d "${TMPDIR:-/tmp}/mcpweft-cluster.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ "${CLUSTER_KEEP:-0}" == 1 ]] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# Prints N distinct free ports other than the balancer's, held together while they are picked
# (the caller freed the balancer's port to pass it here, so the system may hand it out again).
free_ports() {
  python3 -c 'import socket, sys
count, balancer = int(sys.argv[1]), int(sys.argv[2])
held, ports = [], []
while len(ports) < count:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
    if s.getsockname()[1] != balancer:
        ports.append(s.getsockname()[1])
print(" ".join(map(str, ports)))' "$1" "$balancer_port"
}

wait_port() {
  for _ in $(seq 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "cluster: nothing listens on port $1 ($2); logs in $dir" >&2
  CLUSTER_KEEP=1
  exit 1
}

# Redis listens on a socket file only: no port another process could take.
redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --save "" --appendonly yes \
  --dir "$dir" >"$dir/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do [[ -S "$dir/redis.sock" ]] && break; sleep 0.1; done
[[ -S "$dir/redis.sock" ]] || { echo "cluster: redis-server did not start; logs in $dir" >&2; CLUSTER_KEEP=1; exit 1; }

export MCPWEFT_REDIS_URL="redis+unix://$dir/redis.sock"
export MCPWEFT_ALLOWED_HOSTS="127.0.0.1:$balancer_port,localhost:$balancer_port"
config="global
  maxconn 4096

defaults
  mode http
  timeout connect 1s
  timeout client 300s
  timeout server 300s
  retries 2
  retry-on conn-failure empty-response
  option redispatch 1
  http-reuse safe

frontend mcp
  bind 127.0.0.1:$balancer_port
  default_backend members

backend members
  balance roundrobin"
read -r -a ports <<<"$(free_ports "$members")"
for i in $(seq "$members"); do
  port="${ports[$((i - 1))]}"
  "$@" "$port" >"$dir/member$i.log" 2>&1 &
  pids+=($!)
  config+=$'\n'"  server m$i 127.0.0.1:$port check inter 500 fall 2 rise 1"
done
for port in "${ports[@]}"; do wait_port "$port" "a member"; done
printf '%s\n' "$config" >"$dir/haproxy.cfg"
haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
pids+=($!)
wait_port "$balancer_port" haproxy
echo "cluster: ready: http://127.0.0.1:$balancer_port/mcp -> ${ports[*]} (Redis $MCPWEFT_REDIS_URL, files $dir)" >&2
# Ends (and takes the others down) as soon as any process of the cluster does.
wait -n "${pids[@]}"
echo "cluster: a process ended; stopping (logs in $dir)" >&2
