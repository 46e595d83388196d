#!/usr/bin/env bash
# Issue 4's sync benchmark as whole processes: write benchgen's corpus of every agent's
# native files into DIR/home (once; kept for later runs), then run the real bin/pond twice in
# an isolated installation with no daemon: a cold sync into an empty store, and a warm sync with
# nothing changed. Prints wall time and peak RSS of each.
#
#   scripts/bench-sync.sh [DIR]        (POND_BENCH_SESSIONS=400 for a smaller corpus)
#   POND_BENCH_REDACT=1 scripts/bench-sync.sh [DIR]   the same with redaction at capture on
#   POND_BENCH_AGENTS=hermes scripts/bench-sync.sh [DIR]   a corpus of these formats only
#     (comma-separated adapter names): one format a run gives its msgs/s
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/pond-bench-sync}
sessions=${POND_BENCH_SESSIONS:-2000}
agents=${POND_BENCH_AGENTS:-}
corpus=$sessions${agents:+-${agents//,/-}}
mkdir -p "$dir"
make -s build
if [ ! -f "$dir/manifest-$corpus.json" ]; then
	rm -rf "$dir/home-$corpus"
	scripts/go run ./daemon/capture/benchgen/cmd/pond-benchgen -sessions "$sessions" ${agents:+-agents "$agents"} -home "$dir/home-$corpus" >"$dir/manifest-$corpus.json.tmp"
	mv "$dir/manifest-$corpus.json.tmp" "$dir/manifest-$corpus.json"
fi
grep -A4 '"total"' "$dir/manifest-$corpus.json"
inst="$dir/pond"
rm -rf "$inst"
mkdir -p "$inst"
if [ "${POND_BENCH_REDACT:-}" = 1 ]; then
	printf '[privacy]\nredact = true\n' >"$inst/config.toml"
fi
# HOME points the agents' default locations into the corpus; POND_* keep Pond's own files apart.
run() {
	env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR \
		-u CLAUDE_CONFIG_DIR -u CODEX_HOME -u GEMINI_CLI_HOME -u PI_CODING_AGENT_DIR -u QWEN_HOME -u QWEN_RUNTIME_DIR -u HERMES_HOME -u OPENCLAW_STATE_DIR -u COPILOT_HOME \
		HOME="$dir/home-$corpus" POND_CONFIG_FILE="$inst/config.toml" POND_DATA_DIR="$inst/data" \
		POND_STATE_DIR="$inst/state" POND_RUNTIME_DIR="$inst/run" \
		/usr/bin/time -f "$1: %e s wall, %U s user, %S s system, %M KiB peak RSS" bin/pond sync --format json >"$inst/$1.json"
}
run cold
run warm
python3 - "$inst" <<'PY'
import json, sys
for run in ("cold", "warm"):
    r = json.load(open(f"{sys.argv[1]}/{run}.json"))
    print(run, "inserted", r["inserted"], "outcome", r["outcome"])
PY
