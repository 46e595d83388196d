#!/usr/bin/env bash
# Issue 27's search measurements through the daemon, on an archive synced already (an
# installation that scripts/bench-archive.sh or `pond sync` left). A daemon is started on it,
# left START seconds, and then:
#
#   1. the same query is searched N times in a row over the socket: p50 / p95 / max (the idle
#      probe of docs/benchmarks.md);
#   2. a burst of BURST searches in a row, each for a different word that 200–450 of the
#      archive's messages hold (taken from the mirror's full-text vocabulary, shuffled with a
#      fixed seed): p50 / p95 per hundred, and the daemon's RSS before, right after and SETTLE
#      seconds after (the search connections' page caches are given back once idle).
#
# The daemon's HOME is an empty folder, so it captures nothing while it is measured.
#
#   scripts/bench-daemon.sh INST [BINARY]
#   INST                      the installation: INST/config.toml, INST/data, INST/state
#   BINARY                    the pond to run (default: this tree's bin/pond, built first)
#   POND_BENCH_QUERY="lumi mimite"   the query of step 1 (a corpus word pair of benchgen's)
#   POND_BENCH_N=100          searches in step 1
#   POND_BENCH_BURST=300      searches in step 2 (0: no burst)
#   POND_BENCH_START=5        seconds the daemon idles before step 1
#   POND_BENCH_SETTLE=30      seconds after the burst the memory is read again
set -euo pipefail
cd "$(dirname "$0")/.."
inst=$(realpath "${1:?usage: scripts/bench-daemon.sh INST [BINARY]}")
[ -d "$inst/data" ] || { echo "bench-daemon: $inst/data not found: sync an archive into INST first" >&2; exit 2; }
if [ -n "${2:-}" ]; then
	bin=$(realpath "$2")
else
	make -s build
	bin=$(realpath bin/pond)
fi
query=${POND_BENCH_QUERY:-lumi mimite}
n=${POND_BENCH_N:-100}
burst=${POND_BENCH_BURST:-300}
start=${POND_BENCH_START:-5}
settle=${POND_BENCH_SETTLE:-30}
command -v python3 >/dev/null || { echo "bench-daemon: python3 is needed to read the mirror's vocabulary" >&2; exit 2; }

home="$inst/bench-daemon-home"
out="$inst/bench-daemon"
mkdir -p "$home" "$out"
sock="$inst/run/pond.sock"

source scripts/bench-lib.sh
trap stop_daemon EXIT

# The words of the burst, read before the daemon holds the mirror (read-only, so either way).
words="$out/burst-words"
python3 - "$inst/data/mirror.db" "$burst" >"$words" <<'EOF'
import random, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, messages_fts, row)")
words = [r[0] for r in db.execute("SELECT term FROM temp.vocab WHERE doc BETWEEN 200 AND 450 AND term GLOB '[a-z]*' ORDER BY term")]
random.Random(3).shuffle(words)
print("\n".join(words[:int(sys.argv[2])]))
EOF
if [ "$burst" -gt 0 ] && [ "$(wc -l <"$words")" -lt "$burst" ]; then
	echo "bench-daemon: the archive has only $(wc -l <"$words") words held by 200-450 messages; the burst uses them all"
fi

env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR HOME="$home" \
	POND_CONFIG_FILE="$inst/config.toml" POND_DATA_DIR="$inst/data" POND_STATE_DIR="$inst/state" \
	POND_RUNTIME_DIR="$inst/run" "$bin" daemon >"$out/daemon.out" 2>"$out/daemon.err" &
daemon_pid=$!
for _ in $(seq 1 240); do
	[ -S "$sock" ] && break
	kill -0 "$daemon_pid" 2>/dev/null || { echo "bench-daemon: the daemon exited; see $out/daemon.err" >&2; exit 1; }
	sleep 0.5
done
[ -S "$sock" ] || { echo "bench-daemon: no socket at $sock after 120 s" >&2; exit 1; }
sleep "$start"

# search BODY: one search request over the socket; prints its seconds.
search() {
	curl -s -o /dev/null --max-time 60 -w '%{time_total}\n' --unix-socket "$sock" -H 'Content-Type: application/json' \
		-d "$1" http://pond/v1/search
}

# latencies FILE LABEL: p50 / p95 / max of a file of seconds, in ms.
latencies() {
	awk '{print $1 * 1000}' "$1" | sort -n | awk -v label="$2" '
		{v[NR] = $1} END {if (!NR) exit; i = int(NR * 0.95) + 1; if (i > NR) i = NR
			printf "  %s: p50 %.0f ms, p95 %.0f ms, max %.0f ms (%d searches)\n", label, v[int(NR * 0.5) + 1], v[i], v[NR], NR}'
}

body=$(python3 -c 'import json,sys; print(json.dumps({"protocol_version": 1, "query": sys.argv[1]}))' "$query")
echo "daemon $bin on $inst"
memory "idle, before"
: >"$out/idle"
for _ in $(seq 1 "$n"); do
	search "$body" >>"$out/idle"
done
latencies "$out/idle" "\"$query\" $n times in a row"

if [ "$burst" -gt 0 ]; then
	memory "before the burst"
	: >"$out/burst"
	while read -r w; do
		search "{\"protocol_version\":1,\"query\":\"$w\"}" >>"$out/burst" # vocabulary terms: no quote or backslash
	done <"$words"
	memory "after $(wc -l <"$out/burst") searches of different words"
	total=$(wc -l <"$out/burst")
	for ((from = 1; from <= total; from += 100)); do
		tail -n +"$from" "$out/burst" | head -100 >"$out/burst-part"
		latencies "$out/burst-part" "searches $from-$((from + $(wc -l <"$out/burst-part") - 1))"
	done
	sleep "$settle"
	memory "$settle s later"
fi
