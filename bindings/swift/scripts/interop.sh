#!/usr/bin/env bash
# Interoperability of the Swift package with the official SDKs and with the other languages'
# examples, after test.sh built it:
#   1. the official TypeScript SDK client (tests/interop/ts_client.mjs) against the Swift
#      calculator server, over stdio;
#   2. the official Python SDK client (Interop/official_client.py, `mcp` from the repository's
#      .venv) against the same server, over stdio;
#   3. the Swift calculator client against the Rust calculator server, over stdio;
#   4. the Swift calculator client against the Python calculator example over Streamable HTTP
#      (the Python server runs on the host, the Swift client in the Swift root);
#   5. the Swift calculator client spawning the Python calculator example over stdio: both run
#      in the Swift root, whose python3 imports the package `make test-python` built into the
#      checkout (python/src, with its abi3 extension module), found through the .venv.
# A check whose prerequisite is missing (tests/interop/node_modules, the venv, a built example)
# is skipped with a message. Prints `N passed, M failed` last; exits 1 when any failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="$(cd "$here/.." && pwd)"
repo="$(cd "$package/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
[[ "$target" == /* ]] || target="$repo/$target"
venv="${VENV:-$repo/.venv}"
run="$here/run.sh"
products="$package/.build/debug"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
passed=0
failed=0
server_pid=""

# Runs check $1 (a name) as the command or function "${@:2}", and scores it. Every program
# runs under `limit`, so no check can hang.
check() {
  local name="$1" log="$logs/${1//[^a-z0-9]/_}.log"
  shift
  if "$@" >"$log" 2>&1; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    tail -n 30 "$log" | sed 's/^/     | /'
    failed=$((failed + 1))
  fi
}

limit() {
  timeout -k 5 90 "$@"
}

skip() {
  echo "skip $1: $2"
}

# Runs the Swift calculator client with "$@" and checks what it prints.
calculator_client() {
  local out
  out="$(limit "$run" "$products/calculator-client" "$@")" || return 1
  echo "$out"
  for line in "add(2, 3) = 5" "progress 1/3" "progress 2/3" "progress 3/3" "count: counted to 3" \
    "prompt explain: Explain step by step how to compute 2+3."; do
    grep -qxF "$line" <<<"$out" || { echo "missing line: $line"; return 1; }
  done
  grep -q '^resource calc://constants: .*3\.14159' <<<"$out" || { echo "missing the constants"; return 1; }
  [[ "$(grep -c '^log info: step' <<<"$out")" == 3 ]] || { echo "expected three log lines"; return 1; }
}

[[ -x "$products/calculator-server" && -x "$products/calculator-client" ]] || {
  echo "interop.sh: build the Swift package first (scripts/test.sh or scripts/build.sh)" >&2
  exit 2
}

if [[ -d "$repo/tests/interop/node_modules/@modelcontextprotocol/sdk" ]]; then
  check "TypeScript SDK client -> Swift calculator server (stdio)" \
    limit node "$repo/tests/interop/ts_client.mjs" "$run" "$products/calculator-server"
else
  skip "TypeScript SDK client" "no tests/interop/node_modules (make test-interop installs it)"
fi

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
  check "Python SDK client -> Swift calculator server (stdio)" \
    limit "$venv/bin/python" "$package/Interop/official_client.py" "$run" "$products/calculator-server"
else
  skip "Python SDK client" "no official mcp package in $venv (make test-python installs it)"
fi

if [[ -x "$target/debug/examples/calculator_server" ]]; then
  check "Swift calculator client -> Rust calculator server (stdio)" \
    calculator_client "$target/debug/examples/calculator_server"
else
  skip "Swift client -> Rust server" "no $target/debug/examples/calculator_server (make build-examples)"
fi

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import mcpweft' 2>/dev/null; then
  port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "$venv/bin/python" "$repo/python/examples/calculator.py" --http "$port" >"$logs/python-server.log" 2>&1 &
  server_pid=$!
  trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -rf "$logs"' EXIT
  for _ in $(seq 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  check "Swift calculator client -> Python calculator server (Streamable HTTP)" \
    calculator_client --http "http://127.0.0.1:$port/mcp"
else
  skip "Swift client -> Python server" "no mcpweft package in $venv (make test-python builds it)"
fi

# The folder the venv imports mcpweft from: the checkout's python/src after `maturin develop`.
python_src=""
if [[ -x "$venv/bin/python" ]]; then
  python_src="$("$venv/bin/python" -c 'import os, mcpweft; print(os.path.dirname(os.path.dirname(os.path.realpath(mcpweft.__file__))))' 2>/dev/null)" || python_src=""
fi
if [[ -z "$python_src" ]]; then
  skip "Swift client -> Python server (stdio)" "no mcpweft package in $venv (make test-python builds it)"
elif [[ "$python_src/" != "$repo/"* ]]; then
  skip "Swift client -> Python server (stdio)" "$venv imports mcpweft from $python_src, outside the checkout the Swift root sees"
elif ! limit "$run" python3 -c 'import sys' >/dev/null 2>&1; then
  skip "Swift client -> Python server (stdio)" "no python3 in the Swift root (toolchain.sh installs it)"
else
  check "Swift calculator client -> Python calculator server (stdio, spawned)" \
    calculator_client /usr/bin/env PYTHONPATH="$python_src" python3 "$repo/python/examples/calculator.py"
fi

echo "$passed passed, $failed failed"
((failed == 0))
