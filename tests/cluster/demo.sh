#!/usr/bin/env bash
# `make demo-cluster`: starts Redis, haproxy (round robin, no session affinity) and three
# `cluster_server` example processes on loopback, runs the `cluster_client` example through the
# balancer, then, when tests/interop's packages are installed (npm ci there), the official
# TypeScript SDK's client (tests/interop/ts_cluster_client.mjs), then, when the checkout's .venv
# has the official Python SDK (package `mcp`; make test-cluster installs it), its client
# (tests/interop/py_cluster_client.py), and stops everything. Expects the examples built
# (feature `redis`) in $CARGO_TARGET_DIR/debug/examples; NODE names the node binary (default:
# the conformance harness's Node 22, else `node`), PYTHON the Python (default: .venv's).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
examples="${CARGO_TARGET_DIR:-$repo/target}/debug/examples"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
"$here/up.sh" "$port" 3 "$examples/cluster_server" &
cluster=$!
trap 'kill "$cluster" 2>/dev/null; wait "$cluster" 2>/dev/null || true' EXIT
for _ in $(seq 600); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  kill -0 "$cluster" 2>/dev/null || { echo "demo-cluster: the cluster did not start" >&2; exit 1; }
  sleep 0.1
done
"$examples/cluster_client" "http://127.0.0.1:$port/mcp"
if [[ -d "$repo/tests/interop/node_modules/@modelcontextprotocol/sdk" ]]; then
  node="${NODE:-$repo/tests/conformance/node_modules/node/bin/node}"
  [[ -x "$node" ]] || node=node
  "$node" "$repo/tests/interop/ts_cluster_client.mjs" "http://127.0.0.1:$port/mcp"
else
  echo "demo-cluster: the TypeScript SDK client is skipped: run npm ci in tests/interop" >&2
fi
python="${PYTHON:-$repo/.venv/bin/python}"
if [[ -x "$python" ]] && "$python" -c 'import mcp' 2>/dev/null; then
  "$python" "$repo/tests/interop/py_cluster_client.py" "http://127.0.0.1:$port/mcp"
else
  echo "demo-cluster: the Python SDK client is skipped: no package mcp in $python (make test-cluster installs it)" >&2
fi
