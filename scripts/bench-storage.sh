#!/usr/bin/env bash
# Issue 26's numbers: a cold sync of benchgen's corpus into a local archive and into one on
# moto's S3 server on loopback (scripts/moto-venv.sh), same binary, same corpus, both wall times
# and their ratio; then a second machine (another installation, its mirror empty) starts a
# daemon on the S3 archive: the time until it answers, until its mirror holds every message
# (its catch-up), and the p50 / p95 of searches on its socket (full-text, and the mirror is
# this machine's, so the archive's place matters only to the catch-up and the vector arm).
# Then semantic search on S3: the first machine embeds the archive with the test model
# (scripts/testmodel.sh), and the second, the model installed there too, runs vector searches
# (they read the vectors from the archive): after a start with an empty disk cache, after a
# restart with the cache warm, and after one with the cache off ([storage] cache_mib = -1).
# Embedding is slow on 2 cores (the 20-session corpus: 8 minutes): measure it at
# POND_BENCH_SESSIONS=20.
#
#   scripts/bench-storage.sh [DIR]        (POND_BENCH_SESSIONS, default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/pond-bench-storage}
sessions=${POND_BENCH_SESSIONS:-100}
mkdir -p "$dir"
make -s build
moto=$(scripts/moto-venv.sh)/bin/moto_server
if [ ! -f "$dir/manifest-$sessions.json" ]; then
	rm -rf "$dir/home-$sessions"
	scripts/go run ./daemon/capture/benchgen/cmd/pond-benchgen -sessions "$sessions" -home "$dir/home-$sessions" >"$dir/manifest-$sessions.json.tmp"
	mv "$dir/manifest-$sessions.json.tmp" "$dir/manifest-$sessions.json"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$moto" -H 127.0.0.1 -p "$port" >"$dir/moto.log" 2>&1 &
moto_pid=$!
trap 'kill $moto_pid' EXIT
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
curl -sf -X PUT -o /dev/null "http://127.0.0.1:$port/pond-bench"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1
run() { # name storage-path
	local inst="$dir/pond-$1"
	rm -rf "$inst"
	mkdir -p "$inst"
	local t0=$(date +%s.%N)
	env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR \
		-u CLAUDE_CONFIG_DIR -u CODEX_HOME -u GEMINI_CLI_HOME -u PI_CODING_AGENT_DIR -u QWEN_HOME -u QWEN_RUNTIME_DIR \
		HOME="$dir/home-$sessions" POND_CONFIG_FILE="$inst/config.toml" POND_DATA_DIR="$inst/data" \
		POND_STATE_DIR="$inst/state" POND_RUNTIME_DIR="$inst/run" POND_STORAGE_PATH="$2" \
		bin/pond sync --format json >"$inst/cold.json"
	local t1=$(date +%s.%N)
	python3 -c "import json; r=json.load(open('$inst/cold.json')); print('$1', 'inserted', r['inserted'], 'outcome', r['outcome'], 'wall %.2f s' % ($t1-$t0))"
	echo "$t1 - $t0" | bc >"$inst/wall"
}
run local "$dir/pond-local/lance"
run s3 "s3+http://127.0.0.1:$port/pond-bench/archive"
echo "ratio s3/local: $(echo "scale=2; $(cat "$dir/pond-s3/wall") / $(cat "$dir/pond-local/wall")" | bc)"

# The second machine.
b="$dir/pond-b"
rm -rf "$b" "$dir/home-empty"
mkdir -p "$b" "$dir/home-empty"
want=$(python3 -c "import json; print(json.load(open('$dir/pond-s3/cold.json'))['inserted']['messages'])")
sock="$b/run/pond.sock"
t0=$(date +%s.%N)
env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR \
	HOME="$dir/home-empty" POND_CONFIG_FILE="$b/config.toml" POND_DATA_DIR="$b/data" POND_STATE_DIR="$b/state" \
	POND_RUNTIME_DIR="$b/run" POND_STORAGE_PATH="s3+http://127.0.0.1:$port/pond-bench/archive" \
	bin/pond daemon --catch-up-every 1s >"$b/daemon.log" 2>&1 &
daemon_pid=$!
trap 'kill $daemon_pid 2>/dev/null; kill $moto_pid' EXIT
until curl -sf -o /dev/null --unix-socket "$sock" http://pond/v1/status; do sleep 0.05; done
t1=$(date +%s.%N)
until [ "$(curl -sf --unix-socket "$sock" http://pond/v1/status | python3 -c 'import json,sys; print(json.load(sys.stdin)["messages"])')" = "$want" ]; do sleep 0.2; done
t2=$(date +%s.%N)
echo "second machine: daemon answering after $(echo "$t1 - $t0" | bc) s; mirror holding all $want messages after $(echo "$t2 - $t0" | bc) s"
searches() { # mode file: 15 searches on the second machine's socket, their times in file
	rm -f "$2"
	for i in $(seq 3); do
		for q in "error handling" "database migration" "fix the flaky test" "timeout" "refactor"; do
			curl -s -o /dev/null -w '%{time_total}\n' --unix-socket "$sock" -H 'Content-Type: application/json' \
				-d "{\"protocol_version\":1,\"query\":\"$q\",\"mode\":\"$1\"}" http://pond/v1/search >>"$2"
		done
	done
}
searches fts "$b/search"
python3 -c "
import statistics
v = sorted(float(x) * 1000 for x in open('$b/search'))
print('searches on the second machine: %d, p50 %.1f ms, p95 %.1f ms' % (len(v), statistics.median(v), v[int(0.95 * (len(v) - 1))]))"

# Semantic search against the archive on S3.
eval "$(make -s print-env)"
model=$(scripts/testmodel.sh)
kill $daemon_pid
wait $daemon_pid 2>/dev/null || true
pond_as() { # installation home-dir args...
	local inst=$1 home=$2
	shift 2
	env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR \
		HOME="$home" POND_CONFIG_FILE="$inst/config.toml" POND_DATA_DIR="$inst/data" POND_STATE_DIR="$inst/state" \
		POND_RUNTIME_DIR="$inst/run" POND_CACHE_DIR="$inst/cache" POND_STORAGE_PATH="s3+http://127.0.0.1:$port/pond-bench/archive" \
		bin/pond "$@"
}
a="$dir/pond-s3"
pond_as "$a" "$dir/home-empty" model install --from "$model" >/dev/null
t0=$(date +%s.%N)
pond_as "$a" "$dir/home-empty" optimize --embed --format json >"$a/embed.json"
echo "first machine: embedded the archive on S3 in $(echo "$(date +%s.%N) - $t0" | bc) s: $(python3 -c "import json; r=json.load(open('$a/embed.json')); print(r['report'].get('embedded', r['report']))" 2>/dev/null || head -c 300 "$a/embed.json")"
pond_as "$b" "$dir/home-empty" model install --from "$model" >/dev/null
vector_round() { # label
	# Not through pond_as: $! must be the daemon's pid (env execs it), not a subshell's.
	env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR \
		HOME="$dir/home-empty" POND_CONFIG_FILE="$b/config.toml" POND_DATA_DIR="$b/data" POND_STATE_DIR="$b/state" \
		POND_RUNTIME_DIR="$b/run" POND_CACHE_DIR="$b/cache" POND_STORAGE_PATH="s3+http://127.0.0.1:$port/pond-bench/archive" \
		bin/pond daemon --catch-up-every 1s >>"$b/daemon.log" 2>&1 &
	daemon_pid=$!
	trap 'kill $daemon_pid 2>/dev/null; kill $moto_pid' EXIT
	until curl -sf -o /dev/null --unix-socket "$sock" http://pond/v1/status; do sleep 0.05; done
	searches vector "$b/vsearch"
	local cache
	cache=$(curl -sf --unix-socket "$sock" http://pond/v1/status | python3 -c '
import json, sys
c = json.load(sys.stdin).get("disk_cache")
print("no disk cache" if not c else "disk cache %.1f MiB in %d files, %d hits / %d misses" % (c["bytes"] / 2**20, c["files"], c["hits"], c["misses"]))')
	python3 -c "
import statistics
v = [float(x) * 1000 for x in open('$b/vsearch')]
first, rest = v[0], sorted(v[1:])
print('vector searches, $1: first %.0f ms; the next %d p50 %.1f ms, p95 %.1f ms; $cache' % (first, len(rest), statistics.median(rest), rest[int(0.95 * (len(rest) - 1))]))"
	kill $daemon_pid
	wait $daemon_pid 2>/dev/null || true
}
rm -rf "$b/cache"
vector_round "empty disk cache"
vector_round "disk cache warm"
printf '[storage]\ncache_mib = -1\n' >>"$b/config.toml"
vector_round "disk cache off"
trap 'kill $moto_pid' EXIT
