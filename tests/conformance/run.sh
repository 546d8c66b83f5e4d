#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# package.json) against the fixtures in this folder. See README.md.
#
#   run.sh [server|client|all] [FIXTURE...]      default: all rust
#
# For each FIXTURE (a language: rust, python, ...), `server` starts `server-FIXTURE PORT` and
# runs the suite's server scenarios against http://127.0.0.1:PORT/mcp; `client` runs each
# client scenario with `client-FIXTURE URL` as the client. Prints one table per fixture and
# side, then `N passed, M failed` counting scenarios, and exits 1 when any failed (2 on a
# usage or set-up error). The fixture `proxy` is the Rust server spoken to over stdio behind
# `mcpweft proxy --listen`, and `gateway` the same behind `mcpweft gateway --no-prefix` (server
# side only: `run.sh server proxy`, `run.sh server gateway`).
#
# Environment:
#   CONFORMANCE_RESULTS           results folder (default: <this folder>/results); each fixture's
#                                 subfolder is wiped when that fixture runs
#   CONFORMANCE_SKIP_INSTALL=1    skip `npm ci` when node_modules is already there
#   CONFORMANCE_SKIP_BUILD=1      skip the fixtures' `--build` step (they still build what is missing)
#   CONFORMANCE_SERVER_SCENARIOS  space-separated server scenarios to run instead of `--suite all`
#   CONFORMANCE_CLIENT_SCENARIOS  space-separated client scenarios (default: the basic four, and the
#                                 authorization scenarios for the fixtures in CONFORMANCE_AUTH_FIXTURES;
#                                 with CONFORMANCE_NEXT=1, every client scenario the suite lists)
#   CONFORMANCE_AUTH_FIXTURES     fixtures whose client logs in with OAuth (default: rust python node swift)
#   CONFORMANCE_CLIENT_TIMEOUT    seconds a client may run per scenario (default 30)
#   CONFORMANCE_STARTUP_TIMEOUT   seconds a server may take to accept connections (default 60)
#   CONFORMANCE_SUITE_TIMEOUT     seconds the whole server suite may take (default 1200)
#   CONFORMANCE_VERBOSE=1         also print the CLI's own output
#   CONFORMANCE_NEXT=1            run suite 0.2.0-alpha.12 (revision 2026-07-28 and extensions,
#                                 pinned as conformance-next) instead of 0.1.16
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
node="$here/node_modules/node/bin/node"
cli="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [[ "${CONFORMANCE_NEXT:-0}" == 1 ]]; then
  cli="$here/node_modules/conformance-next/dist/index.js"
fi
results="${CONFORMANCE_RESULTS:-$here/results}"
client_timeout="${CONFORMANCE_CLIENT_TIMEOUT:-30}"
startup_timeout="${CONFORMANCE_STARTUP_TIMEOUT:-60}"
suite_timeout="${CONFORMANCE_SUITE_TIMEOUT:-1200}"
basic_client_scenarios="initialize tools_call elicitation-sep1034-client-defaults sse-retry"
# The authorization scenarios of suite 0.1.16, the cross-app access extension (SEP-990) included.
auth_client_scenarios="auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
  auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback
  auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
  auth/client-credentials-jwt auth/client-credentials-basic"
auth_fixtures=" ${CONFORMANCE_AUTH_FIXTURES:-rust python node swift} "
# Enterprise-managed authorization (SEP-990), which the Rust and Python client fixtures implement.
identity_assertion_scenarios="auth/cross-app-access-complete-flow"
identity_assertion_fixtures=" rust python "
# How long past the CLI's own client time-out a client may live before we kill it.
kill_grace=5

usage() {
  sed -n '5,6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mode="${1:-all}"
case "$mode" in
  server | client | all) [[ $# -gt 0 ]] && shift ;;
  -h | --help) usage ;;
  *) echo "run.sh: unknown mode '$mode'" >&2; usage ;;
esac
fixtures=("$@")
[[ ${#fixtures[@]} -gt 0 ]] || fixtures=(rust)
for f in "${fixtures[@]}"; do
  if [[ ! "$f" =~ ^[A-Za-z0-9_.-]+$ ]]; then
    echo "run.sh: bad fixture name '$f'" >&2
    exit 2
  fi
done

# --- processes we started, killed on exit ------------------------------------------------------

server_pid=""
cli_pid=""

# Kills the process group led by $1 (or the process alone when it leads no group).
kill_group() {
  local pid="$1" pgid
  [[ -n "$pid" ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  pgid="$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')"
  if [[ "$pgid" == "$pid" ]]; then
    kill -TERM -- "-$pid" 2>/dev/null
  else
    kill -TERM "$pid" 2>/dev/null
  fi
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ "$pgid" == "$pid" ]]; then
    kill -KILL -- "-$pid" 2>/dev/null
  else
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  return 0
}

cleanup() {
  kill_group "$cli_pid"
  cli_pid=""
  kill_group "$server_pid"
  server_pid=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- set-up -----------------------------------------------------------------------------------

if [[ "${CONFORMANCE_SKIP_INSTALL:-0}" != 1 || ! -x "$node" || ! -f "$cli" ]]; then
  if ! (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "run.sh: npm ci failed in $here" >&2
    exit 2
  fi
fi
if [[ "$("$node" --version 2>/dev/null)" != v22.* ]]; then
  echo "run.sh: $node is not Node 22 (the conformance CLI needs it)" >&2
  exit 2
fi
# The CLI's mock servers must listen on loopback only; quoted for paths with spaces.
cli_node_options="--require \"$here/loopback.cjs\"${NODE_OPTIONS:+ $NODE_OPTIONS}"
# The CLI starts once per client scenario, about 150 times in make test: Node 22's compile cache
# spares each start a fifth of its CPU time.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$here/node_modules/.cache/node-compile}"

run_cli() {
  NODE_OPTIONS="$cli_node_options" "$node" "$cli" "$@"
}

free_port() {
  "$node" -e 'const s = require("net").createServer();
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# Prints the scenarios of one side ("Server" or "Client") as `conformance list` names them.
list_scenarios() {
  run_cli list | awk -v side="$1 scenarios" '
    index($0, side) == 1 { on = 1; next }
    /scenarios/ && !/^ / { on = 0 }
    on && $1 == "-" { print $2 }'
}

mkdir -p "$results"

total_passed=0
total_failed=0
failure_notes=()

row() {
  printf '  %-42s %6s %6s %6s  %s\n' "$@"
}

# Scores one scenario from its checks.json. Arguments: fixture, side, scenario, checks file,
# the CLI's verdict ("" when it does not count, else its exit code), a note, and "quiet" to
# leave the failure out of the closing notes (the caller reports it once for the whole side).
score() {
  local fixture="$1" side="$2" scenario="$3" file="$4" cli_rc="$5" note="$6" quiet="${7:-}"
  local summary="" read_ok="" counts passed="-" failed="-" warnings="-" all=0 verdict reason=""
  if [[ -n "$file" && -v "summaries[$file]" ]]; then
    summary="${summaries[$file]%$'\n'}"
    [[ -n "$summary" ]] && read_ok=1
  elif [[ -n "$file" && -f "$file" ]] && summary="$("$node" "$here/checks.cjs" "$file")"; then
    read_ok=1
  fi
  if [[ -n "$read_ok" ]]; then
    counts="$(head -n 1 <<<"$summary")"
    read -r passed failed warnings all <<<"$counts"
    if ((failed > 0)); then
      reason="failed checks"
    elif [[ "$side" == client ]] && ((warnings > 0)); then
      reason="warnings fail a client scenario"
    elif [[ "$side" == client ]] && ((passed == 0)); then
      reason="no check passed"
    elif ((all == 0)); then
      reason="no check recorded"
    fi
    if [[ -n "$cli_rc" && "$cli_rc" != 0 && -z "$reason" ]]; then
      reason="the CLI exited with $cli_rc"
    fi
  elif [[ -z "$note" ]]; then
    reason="no checks.json"
  fi
  [[ -n "$note" ]] && reason="${reason:+$reason; }$note"
  if [[ -z "$reason" ]]; then
    verdict=PASS
    # A server scenario passes on no FAILURE, even when all its checks are informational.
    ((passed + warnings == 0)) && verdict="PASS (info checks only)"
    total_passed=$((total_passed + 1))
  else
    verdict=FAIL
    total_failed=$((total_failed + 1))
    [[ -z "$quiet" ]] && failure_notes+=("$fixture $side $scenario: $reason")
    if [[ -z "$quiet" && -n "${summary:-}" ]]; then
      while IFS= read -r line; do
        failure_notes+=("    $line")
      done < <(tail -n +2 <<<"$summary")
    fi
  fi
  row "$scenario" "$passed" "$failed" "$warnings" "$verdict"
}

# The summaries of checks.json files that `summarize` made, by file; `score` reads a file's from
# here and runs checks.cjs itself for a file not summarized.
declare -A summaries=()

# Summarizes the given checks.json files in one run of checks.cjs into `summaries`; a file that
# cannot be read gets an empty summary, which `score` counts as no checks.json.
summarize() {
  local line file=""
  summaries=()
  while IFS= read -r line; do
    if [[ "$line" == "== "* ]]; then
      file="${line#== }"
      summaries[$file]=""
    elif [[ -n "$file" ]]; then
      summaries[$file]+="$line"$'\n'
    fi
  done < <("$node" "$here/checks.cjs" --each "$@" 2>/dev/null)
}

# Returns the newest result folder of a scenario: PREFIX-YYYY-MM-DDT... under DIR.
result_dir() {
  local dir="$1" prefix="$2"
  # shellcheck disable=SC2012
  ls -1d "$dir/$prefix"-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T* 2>/dev/null | sort | tail -n 1
}

# Runs `SCRIPT --build` into LOG, unless CONFORMANCE_SKIP_BUILD=1.
build_fixture() {
  [[ "${CONFORMANCE_SKIP_BUILD:-0}" == 1 ]] || "$1" --build >"$2" 2>&1
}

# Starts `server-FIXTURE PORT` (built already) in its own process group and waits until it
# accepts connections; on failure sets `problem`.
start_server() {
  local script="$1" port="$2" log="$3" deadline
  CONFORMANCE_SKIP_BUILD=1 setsid "$script" "$port" >>"$log" 2>&1 </dev/null &
  server_pid=$!
  deadline=$((SECONDS + startup_timeout))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      wait "$server_pid" 2>/dev/null
      problem="the server exited with $? before accepting connections"
      server_pid=""
      return
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return
    fi
    sleep 0.2
  done
  problem="the server accepted no connection on port $port within ${startup_timeout}s"
}

run_server_side() {
  local fixture="$1" script="$here/server-$1" dir="$results/$1/server" log port problem rc scenarios s
  local cli_log="$results/$1/server-cli.log"
  log="$results/$1/server-$1.log"
  mkdir -p "$dir"
  if [[ -n "${CONFORMANCE_SERVER_SCENARIOS:-}" ]]; then
    read -r -a scenarios <<<"$CONFORMANCE_SERVER_SCENARIOS"
  else
    mapfile -t scenarios < <(list_scenarios Server)
  fi
  echo
  echo "== $fixture: server scenarios (server-$fixture) =="
  problem=""
  if [[ ! -x "$script" ]]; then
    problem="no executable $script"
  elif ! build_fixture "$script" "$log"; then
    problem="server-$fixture --build failed (see $log)"
  else
    port="$(free_port)"
    start_server "$script" "$port" "$log"
  fi
  if [[ -n "$problem" ]]; then
    echo "  $problem"
    tail -n 20 "$log" 2>/dev/null | sed 's/^/    | /'
    row SCENARIO PASSED FAILED WARN VERDICT
    for s in "${scenarios[@]}"; do
      score "$fixture" server "$s" "" "" "$problem" quiet
    done
    failure_notes+=("$fixture server: all ${#scenarios[@]} scenarios failed: $problem")
    return
  fi
  local url="http://127.0.0.1:$port/mcp"
  echo "  $url"
  if [[ -n "${CONFORMANCE_SERVER_SCENARIOS:-}" ]]; then
    rc=0
    for s in "${scenarios[@]}"; do
      timeout -k 10 "$suite_timeout" env NODE_OPTIONS="$cli_node_options" "$node" "$cli" server \
        --url "$url" --scenario "$s" -o "$dir" >>"$cli_log" 2>&1 || rc=$?
    done
  else
    timeout -k 10 "$suite_timeout" env NODE_OPTIONS="$cli_node_options" "$node" "$cli" server \
      --url "$url" --suite all -o "$dir" >"$cli_log" 2>&1
    rc=$?
  fi
  [[ "${CONFORMANCE_VERBOSE:-0}" == 1 ]] && cat "$cli_log"
  local note=""
  ((rc == 124)) && note="the suite timed out after ${suite_timeout}s"
  if ! kill -0 "$server_pid" 2>/dev/null; then
    note="${note:+$note; }the server exited during the suite"
  fi
  local files=()
  for s in "${scenarios[@]}"; do
    files+=("$(result_dir "$dir" "server-$s")/checks.json")
  done
  summarize "${files[@]}"
  row SCENARIO PASSED FAILED WARN VERDICT
  local i
  for i in "${!scenarios[@]}"; do
    score "$fixture" server "${scenarios[i]}" "${files[i]}" "" "$note"
  done
  summaries=()
  kill_group "$server_pid"
  server_pid=""
}

# Runs one client scenario; kills the client if it outlives the CLI's time-out (the CLI only
# kills the /bin/sh it started). Sets `client_rc` to the CLI's exit code, or "killed".
run_client_scenario() {
  local command="$1" scenario="$2" dir="$3" log="$4" limit pid pgid
  client_rc=""
  setsid env NODE_OPTIONS="$cli_node_options" CONFORMANCE_SKIP_BUILD=1 "$node" "$cli" client \
    --command "$command" --scenario "$scenario" --timeout "$((client_timeout * 1000))" -o "$dir" \
    >"$log" 2>&1 </dev/null &
  cli_pid=$!
  limit=$((SECONDS + client_timeout + kill_grace))
  while kill -0 "$cli_pid" 2>/dev/null && ((SECONDS < limit)); do
    sleep 0.1
  done
  if kill -0 "$cli_pid" 2>/dev/null; then
    # Everything in the CLI's process group but the CLI itself is the client (and its shell).
    pgid="$(ps -o pgid= -p "$cli_pid" | tr -d ' ')"
    if [[ "$pgid" == "$cli_pid" ]]; then
      for pid in $(ps -e -o pid=,pgid= | awk -v g="$pgid" -v me="$cli_pid" '$2 == g && $1 != me { print $1 }'); do
        kill -KILL "$pid" 2>/dev/null
      done
    fi
    echo "[run.sh] the client outlived the ${client_timeout}s time-out and was killed" >>"$log"
    client_rc=killed
    limit=$((SECONDS + 15))
    while kill -0 "$cli_pid" 2>/dev/null && ((SECONDS < limit)); do
      sleep 0.1
    done
  fi
  if kill -0 "$cli_pid" 2>/dev/null; then
    kill_group "$cli_pid"
    cli_pid=""
    client_rc=killed
    return
  fi
  wait "$cli_pid"
  local code=$?
  cli_pid=""
  client_rc="${client_rc:-$code}"
}

run_client_side() {
  local fixture="$1" script="$here/client-$1" dir="$results/$1/client" command s note client_scenarios
  if [[ -n "${CONFORMANCE_CLIENT_SCENARIOS:-}" ]]; then
    read -r -a client_scenarios <<<"$CONFORMANCE_CLIENT_SCENARIOS"
  elif [[ "${CONFORMANCE_NEXT:-0}" == 1 ]]; then
    mapfile -t client_scenarios < <(list_scenarios Client)
  elif [[ "$auth_fixtures" == *" $fixture "* ]]; then
    local extra=""
    [[ "$identity_assertion_fixtures" == *" $fixture "* ]] && extra="$identity_assertion_scenarios"
    read -r -d '' -a client_scenarios <<<"$basic_client_scenarios $auth_client_scenarios $extra"
  else
    read -r -a client_scenarios <<<"$basic_client_scenarios"
  fi
  mkdir -p "$dir"
  echo
  echo "== $fixture: client scenarios (client-$fixture) =="
  local build_log="$results/$1/client-build.log"
  if [[ ! -x "$script" ]] || ! build_fixture "$script" "$build_log"; then
    local problem="no executable $script"
    [[ -x "$script" ]] && problem="client-$fixture --build failed (see $build_log)"
    echo "  $problem"
    row SCENARIO PASSED FAILED WARN VERDICT
    for s in "${client_scenarios[@]}"; do
      score "$fixture" client "$s" "" "" "$problem" quiet
    done
    failure_notes+=("$fixture client: all ${#client_scenarios[@]} scenarios failed: $problem")
    return
  fi
  # The CLI splits the command on spaces and hands it to /bin/sh, so shell quoting survives.
  command="$(printf '%q' "$script")"
  row SCENARIO PASSED FAILED WARN VERDICT
  for s in "${client_scenarios[@]}"; do
    local log="$results/$1/client-${s//\//_}.log"
    run_client_scenario "$command" "$s" "$dir" "$log"
    [[ "${CONFORMANCE_VERBOSE:-0}" == 1 ]] && cat "$log"
    note=""
    [[ "$client_rc" == killed ]] && note="the client never exited and was killed"
    score "$fixture" client "$s" "$(result_dir "$dir" "$s")/checks.json" "$client_rc" "$note"
  done
}

for fixture in "${fixtures[@]}"; do
  rm -rf "${results:?}/$fixture"
  mkdir -p "$results/$fixture"
  [[ "$mode" == client ]] || run_server_side "$fixture"
  [[ "$mode" == server ]] || run_client_side "$fixture"
done

if ((${#failure_notes[@]} > 0)); then
  echo
  echo "Failures (details under $results):"
  printf '  %s\n' "${failure_notes[@]}"
fi
echo
echo "$total_passed passed, $total_failed failed"
((total_failed == 0))
