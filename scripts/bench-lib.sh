# Shared helpers of the whole-process benchmarks that run a daemon (bench-archive.sh,
# bench-daemon.sh). Sourced, never run. The script sets daemon_pid when it starts the daemon.

daemon_pid=

# stop_daemon stops the daemon the script started, if it runs (the scripts trap EXIT with it).
stop_daemon() {
	if [ -n "$daemon_pid" ]; then
		kill "$daemon_pid" 2>/dev/null || true
		wait "$daemon_pid" 2>/dev/null || true
		daemon_pid=
	fi
}

# memory LABEL: the daemon's resident and anonymous memory now.
memory() {
	awk -v label="$1" '/^VmRSS|^RssAnon/ {v[$1]=$2} END {printf "  %s: RSS %d MiB, anon %d MiB\n", label, v["VmRSS:"]/1024, v["RssAnon:"]/1024}' "/proc/$daemon_pid/status"
}
