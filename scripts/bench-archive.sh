#!/usr/bin/env bash
# Issue 27's side-by-side archive benchmark, as whole processes: this tree's bin/pond against a
# second binary (today's Pond built from another worktree, or a peer's pond-compatible build),
# alternating, on the same corpus (benchgen's native files of every agent, written once into
# DIR/home-N and kept). For each binary and round, in a fresh isolated installation:
#
#   1. cold `pond sync` with no daemon: wall, CPU (user + system), peak RSS (/usr/bin/time);
#   2. `pond daemon` started, then its upkeep on request (`pond optimize --run`, the daemon's
#      own Upkeep, versions kept for the binary's default time): wall of the request, then the
#      daemon's RSS and anonymous RSS right after and after SETTLE seconds idle; while the
#      upkeep runs, /v1/status and a search are asked over the socket in turn, and their
#      latencies' p50 / p95 / max printed (the issue's goal: p95 ≤ 50 ms while upkeep runs),
#      beside the same taken idle before it, and the archive's largest size during the run;
#   3. FOLLOWUP seconds after the upkeep, the daemon left alone: a daemon that prunes what an
#      upkeep replaced once it is old has done so by then (builds that keep replaced versions
#      2 min; since the reader files, a local archive's go in the upkeep that replaced them);
#   4. `pond optimize --prune --keep-versions 0` through the daemon: every replaced version gone.
#
# After each of them it prints the archive's bytes (`du -sb`): each Lance table, mirror.db
# with its -wal, and the whole data folder, next to the corpus' own bytes.
#
#   scripts/bench-archive.sh OTHER_BINARY [DIR]
#   POND_BENCH_SESSIONS=500   corpus size (default 2000, the issue's)
#   POND_BENCH_AGENTS=a,b     only these agents' formats (benchgen's -agents; default every
#                             agent's). The issue's corpus is claude-code,codex-cli,pi-coding-agent:
#                             a binary that predates an adapter would skip the rest
#   POND_BENCH_ROUNDS=2       rounds, each running both binaries, the order swapped each round
#   POND_BENCH_SETTLE=60      seconds the daemon idles before its memory is read again
#   POND_BENCH_FOLLOWUP=150   seconds after the upkeep the archive is measured again (0: not)
#   POND_BENCH_BREAKDOWN=1    also print where mirror.db's bytes go (sqlite3 CLI with dbstat)
#   POND_BENCH_PROBE=0        no requests while upkeep runs: the daemon's CPU over the upkeep is
#                             then the upkeep's alone (with the probe, its searches add tens of
#                             CPU seconds on the 2,000-session corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
other=${1:?usage: scripts/bench-archive.sh OTHER_BINARY [DIR]}
other=$(realpath "$other")
dir=${2:-/tmp/pond-bench-archive}
sessions=${POND_BENCH_SESSIONS:-2000}
rounds=${POND_BENCH_ROUNDS:-1}
settle=${POND_BENCH_SETTLE:-60}
followup=${POND_BENCH_FOLLOWUP:-150}
mkdir -p "$dir"
make -s build
this=$(realpath bin/pond)
agents=${POND_BENCH_AGENTS:-}
corpus_name=$sessions${agents:+-${agents//,/-}}
home="$dir/home-$corpus_name"
manifest="$dir/manifest-$corpus_name.json"
if [ ! -f "$manifest" ]; then
	rm -rf "$home"
	scripts/go run ./daemon/capture/benchgen/cmd/pond-benchgen -sessions "$sessions" ${agents:+-agents "$agents"} -home "$home" >"$manifest.tmp"
	mv "$manifest.tmp" "$manifest"
fi
corpus=$(du -sb "$home" | cut -f1)
echo "corpus: $sessions sessions${agents:+ of $agents}, $corpus bytes ($home)"
grep -A4 '"total"' "$manifest"

source scripts/bench-lib.sh
trap stop_daemon EXIT

# pond BIN INST ARGS…: the binary in the installation INST, HOME pointing the agents' default
# locations into the corpus, POND_* keeping Pond's own files apart. /usr/bin/time runs it as
# "${envs[@]}" BIN ARGS… after `setenvs INST`.
setenvs() {
	envs=(env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_RUNTIME_DIR
		-u CLAUDE_CONFIG_DIR -u CODEX_HOME -u GEMINI_CLI_HOME -u PI_CODING_AGENT_DIR -u QWEN_HOME -u QWEN_RUNTIME_DIR
		HOME="$home" POND_CONFIG_FILE="$1/config.toml" POND_DATA_DIR="$1/data"
		POND_STATE_DIR="$1/state" POND_RUNTIME_DIR="$1/run")
}

sizes() {
	local label=$1 inst=$2 line="" t
	for t in "$inst"/data/lance/*.lance; do
		line+=" $(basename "$t" .lance)=$(du -sb "$t" | cut -f1)"
	done
	local mirror=0 f
	# mirror.db-wal is absent after a clean close: count only the files that exist.
	for f in "$inst"/data/mirror.db "$inst"/data/mirror.db-wal; do
		[ -f "$f" ] && mirror=$((mirror + $(stat -c %s "$f")))
	done
	local total
	total=$(du -sb "$inst/data" | cut -f1)
	echo "  $label: bytes total=$total (×$(awk -v a="$total" -v b="$corpus" 'BEGIN{printf "%.2f", a/b}') the corpus) lance:$line mirror.db+wal=$mirror"
}

# largest INST: until killed, the data folder's bytes each second, the largest seen kept in
# INST/largest (what the disk must hold while upkeep runs) and every sample, with the seconds
# since the start, in INST/sizes-during.
largest() {
	local inst=$1 peak=0 t start=$SECONDS
	: >"$inst/sizes-during"
	while :; do
		t=$(du -sb "$inst/data" 2>/dev/null | cut -f1) || true
		echo "$((SECONDS - start)) ${t:-0}" >>"$inst/sizes-during"
		if [ "${t:-0}" -gt "$peak" ]; then
			peak=$t
			echo "$peak" >"$inst/largest"
		fi
		sleep 1
	done
}

# probe SOCK OUT QUERY: until killed, GET /v1/status and POST a search for QUERY over the
# daemon's socket in turn, appending "status SECONDS" and "search SECONDS" lines to OUT.
probe() {
	local sock=$1 out=$2 query=$3
	while :; do
		curl -s -o /dev/null --max-time 60 -w 'status %{time_total}\n' --unix-socket "$sock" http://pond/v1/status >>"$out" || true
		curl -s -o /dev/null --max-time 60 -w 'search %{time_total}\n' --unix-socket "$sock" -H 'Content-Type: application/json' \
			-d "{\"protocol_version\":1,\"query\":\"$query\"}" http://pond/v1/search >>"$out" || true
	done
}

# latencies OUT LABEL: p50 / p95 / max per route of a probe's lines, in ms.
latencies() {
	local out=$1 label=$2 route
	for route in status search; do
		awk -v r="$route" '$1 == r {print $2 * 1000}' "$out" | sort -n | awk -v label="$label" -v r="$route" '
			{v[NR] = $1} END {if (!NR) exit; i = int(NR * 0.95) + 1; if (i > NR) i = NR
				printf "  %s: /v1/%s p50 %.0f ms, p95 %.0f ms, max %.0f ms (%d requests)\n", label, r, v[int(NR * 0.5) + 1], v[i], v[NR], NR}'
	done
}

# cpu: the daemon's user + system CPU seconds so far (/proc/PID/stat, clock ticks).
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$daemon_pid/stat"
}


# breakdown INST: where the mirror's bytes go, per table and index (dbstat: pages, so overflow
# and free space count), and the logical bytes of its large columns (the same values Lance
# stores, so they size Lance's columns too).
breakdown() {
	local db="$1/data/mirror.db"
	command -v sqlite3 >/dev/null || { echo "  (no sqlite3 CLI: no breakdown)"; return; }
	echo "  mirror.db by table and index (MB of pages, of payload, unused in them; overflow pages):"
	sqlite3 -readonly "$db" "SELECT printf('    %-28s %8.1f %8.1f %8.1f %8d', name, sum(pgsize)/1e6, sum(payload)/1e6, sum(unused)/1e6, sum(pagetype = 'overflow'))
		FROM dbstat GROUP BY name ORDER BY sum(pgsize) DESC LIMIT 14"
	if [ "$(sqlite3 -readonly "$db" "SELECT count(*) FROM sqlite_master WHERE name = 'message_rows'")" = 1 ]; then
		# Layout 2: the large JSON columns are packed (store/sqlite/pack.go); the CLI has no
		# pond_unpack, so these are the stored bytes.
		# Layout 5: message_rows holds no raw records (they are read from Lance).
		local records="0"
		[ "$(sqlite3 -readonly "$db" "SELECT count(*) FROM pragma_table_info('message_rows') WHERE name = 'options_packed'")" = 1 ] &&
			records="(SELECT sum(length(options_packed)) FROM message_rows)"
		echo "  stored MB of the large columns (packed):"
		sqlite3 -readonly "$db" "SELECT printf('    message_rows: options_packed %.1f, search_text %.1f; part_rows: options_packed %.1f, variant_data_packed %.1f; sessions: options %.1f',
			$records/1e6, (SELECT sum(length(CAST(search_text AS BLOB))) FROM message_rows)/1e6,
			(SELECT sum(length(options_packed)) FROM part_rows)/1e6, (SELECT sum(length(variant_data_packed)) FROM part_rows)/1e6,
			(SELECT sum(length(CAST(options AS BLOB))) FROM sessions)/1e6)"
		# Layout 4: a text part that is its message's search text is stored as an empty BLOB.
		sqlite3 -readonly "$db" "SELECT printf('    text parts stored once (derived from search_text): %d of %d',
			sum(typeof(variant_data_packed) = 'blob' AND length(variant_data_packed) = 0), sum(type = 'text')) FROM part_rows"
		return
	fi
	echo "  logical MB of the large columns:"
	sqlite3 -readonly "$db" "SELECT printf('    messages: options %.1f, content %.1f, search_text %.1f; parts: options %.1f, variant_data %.1f; sessions: options %.1f',
		(SELECT sum(length(CAST(options AS BLOB))) FROM messages)/1e6, (SELECT sum(length(CAST(content AS BLOB))) FROM messages)/1e6,
		(SELECT sum(length(CAST(search_text AS BLOB))) FROM messages)/1e6, (SELECT sum(length(CAST(options AS BLOB))) FROM parts)/1e6,
		(SELECT sum(length(CAST(variant_data AS BLOB))) FROM parts)/1e6, (SELECT sum(length(CAST(options AS BLOB))) FROM sessions)/1e6)"
}

# uncache drops both binaries' pages from the page cache, so that each measured process reads
# its own binary back the same way: a binary just written (make build) sits in large folios on
# this kernel, and a fault maps a whole folio, which put tens of MiB more in the resident memory
# of the build that was written last (docs/benchmarks.md, 2026-12-07, fifth session).
uncache() {
	dd if="$this" iflag=nocache count=0 status=none
	dd if="$other" iflag=nocache count=0 status=none
}

run() {
	local name=$1 bin=$2 inst="$dir/pond-$1"
	rm -rf "$inst"
	mkdir -p "$inst"
	echo "$name ($bin):"
	setenvs "$inst"
	uncache
	/usr/bin/time -o "$inst/time" -f "%e %U %S %M" "${envs[@]}" "$bin" sync --format json >"$inst/sync.json"
	read -r wall user sys peak <"$inst/time"
	echo "  cold sync: $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}') s CPU ($user user + $sys system), $((peak / 1024)) MiB peak RSS"
	sizes "after sync" "$inst"
	# Two words of a stored message: a query that matches, so once the text index exists the
	# probe's searches go through it (benchgen's text is words of its own vocabulary).
	local query
	query=$("${envs[@]}" "$bin" sql --format json "SELECT search_text FROM messages WHERE length(search_text) > 40 ORDER BY session_id, message_id LIMIT 1 OFFSET 100" |
		python3 -c 'import json,re,sys; v=json.load(sys.stdin)["rows"][0]["search_text"]; print(" ".join(re.findall(r"[a-z]{3,}", v.lower())[:2]))')
	echo "  probe query: \"$query\""
	uncache
	"${envs[@]}" "$bin" daemon --log-level warn 2>"$inst/daemon.log" &
	daemon_pid=$!
	for _ in $(seq 600); do
		[ -S "$inst/run/pond.sock" ] && break
		sleep 0.2
	done
	[ -S "$inst/run/pond.sock" ] || { echo "  the daemon did not listen within 2 minutes: $inst/daemon.log"; exit 1; }
	rm -f "$inst/probe-idle" "$inst/probe-upkeep"
	probe "$inst/run/pond.sock" "$inst/probe-idle" "$query" &
	local prober=$!
	sleep 10
	kill "$prober" 2>/dev/null; wait "$prober" 2>/dev/null || true
	prober=
	if [ "${POND_BENCH_PROBE:-1}" != 0 ]; then
		probe "$inst/run/pond.sock" "$inst/probe-upkeep" "$query" &
		prober=$!
	fi
	largest "$inst" &
	local sizer=$!
	local cpu0 cpu1
	cpu0=$(cpu)
	/usr/bin/time -o "$inst/time" -f "%e" "${envs[@]}" "$bin" optimize --run --format json >"$inst/upkeep.json"
	cpu1=$(cpu)
	kill $prober "$sizer" 2>/dev/null; wait $prober "$sizer" 2>/dev/null || true
	local upkept=$SECONDS
	# With the probe on, the daemon's CPU over the request includes its answers to it.
	echo "  upkeep (daemon, versions kept for the binary's default time): $(cat "$inst/time") s wall, $(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN{printf "%.1f", b - a}') s of the daemon's CPU"
	# Binaries that report their steps' times (step_times) say how long each took.
	python3 -c 'import json,sys
r = json.load(sys.stdin).get("report", {})
times = r.get("step_times") or []
steps = ", ".join("%s %.1f s" % (t["step"], t["elapsed_ns"] / 1e9) for t in times)
print("  upkeep steps: " + steps if steps else "", end="\n" if steps else "")
# Search is at its speed once the index step is done, whatever the steps after it do.
names = [t["step"] for t in times]
if "index" in names:
    print("  searchable %.1f s into the upkeep (its steps up to the index step)" % (sum(t["elapsed_ns"] for t in times[:names.index("index") + 1]) / 1e9))' <"$inst/upkeep.json" || true
	local peak
	peak=$(cat "$inst/largest")
	echo "  largest while upkeep runs (sampled each second): bytes total=$peak (×$(awk -v a="$peak" -v b="$corpus" 'BEGIN{printf "%.2f", a/b}') the corpus)"
	latencies "$inst/probe-idle" "idle, before upkeep"
	if [ -n "$prober" ]; then
		latencies "$inst/probe-upkeep" "while upkeep runs"
	fi
	memory "daemon right after upkeep"
	sleep "$settle"
	memory "daemon idle ${settle} s after upkeep"
	sizes "after upkeep" "$inst"
	if [ "$followup" -gt 0 ]; then
		sleep $((followup - (SECONDS - upkept) > 0 ? followup - (SECONDS - upkept) : 0))
		sizes "$followup s after upkeep, the daemon left alone" "$inst"
		memory "daemon idle $followup s after upkeep"
	fi
	"${envs[@]}" "$bin" optimize --prune --keep-versions 0 --format json >"$inst/prune.json"
	sizes "after pruning every old version" "$inst"
	stop_daemon
	[ -n "${POND_BENCH_BREAKDOWN:-}" ] && breakdown "$inst"
	return 0
}

for r in $(seq "$rounds"); do
	echo "round $r"
	if [ $((r % 2)) = 1 ]; then
		run this "$this"
		run other "$other"
	else
		run other "$other"
		run this "$this"
	fi
done
