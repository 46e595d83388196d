#!/usr/bin/env bash
# tray-smoke.sh POND [OUT]: the desktop app end to end under Xvfb. A real `pond daemon` in a
# temporary HOME holding the Claude Code fixtures; `pond tray` on a private session bus; the
# tray's menu read over com.canonical.dbusmenu (GetLayout), "Pause capture" clicked (Event) and
# its effect checked on the daemon; screenshots of the windows written to OUT (default: the
# temporary directory). Needs xvfb, dbus, busctl (systemd), python3, imagemagick (scripts/apt.sh).
set -euo pipefail
pond=$(realpath "$1")
tmp=$(mktemp -d)
out=${2:-$tmp}
mkdir -p "$out"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
export HOME=$tmp/home XDG_RUNTIME_DIR=$tmp/run LANG=en_US.UTF-8 DISPLAY=:${POND_XVFB_DISPLAY:-87}
mkdir -p "$HOME/.claude" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
cp -r "$(dirname "$0")/../adapters/claudecode/testdata/projects" "$HOME/.claude/projects"

Xvfb "$DISPLAY" -screen 0 1024x700x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 & pids+=($!)
dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" >"$tmp/bus.log" 2>&1 & pids+=($!)
export DBUS_SESSION_BUS_ADDRESS=unix:path=$tmp/bus
"$pond" daemon >"$tmp/daemon.log" 2>&1 & pids+=($!)
for _ in $(seq 50); do [[ -S $XDG_RUNTIME_DIR/pond/pond.sock ]] && break; sleep 0.1; done
"$pond" consent grant >/dev/null 2>&1
"$pond" sync >/dev/null 2>&1

"$pond" tray --open search --query test >"$tmp/tray.log" 2>&1 & tray=$!; pids+=($tray)
name=org.kde.StatusNotifierItem-$tray-1
bus=(busctl --address="$DBUS_SESSION_BUS_ADDRESS")
for _ in $(seq 100); do "${bus[@]}" list 2>/dev/null | grep -q "^$name " && break; sleep 0.2; done
sleep 2 # the first status read and the search's answer
labels() {
  "${bus[@]}" --json=short call -- "$name" /StatusNotifierMenu com.canonical.dbusmenu GetLayout iias 0 -1 0 |
    python3 -c 'import json,sys
for c in json.load(sys.stdin)["data"][1][2]:
  l=c["data"][1].get("label",{}).get("data")
  if l: print(c["data"][0], l)'
}
labels >"$tmp/menu.txt"
cat "$tmp/menu.txt"
grep -q ' Pause capture$' "$tmp/menu.txt" || { echo "FAIL: no Pause capture in the tray menu" >&2; exit 1; }
import -window root "$out/search-root.png"

id=$(awk '/ Pause capture$/{print $1}' "$tmp/menu.txt")
"${bus[@]}" call -- "$name" /StatusNotifierMenu com.canonical.dbusmenu Event isvu "$id" clicked s "" 0
sleep 2
"$pond" status 2>/dev/null | grep -q 'capture consent: declined' || { echo "FAIL: clicking Pause capture did not decline capture" >&2; exit 1; }
labels >"$tmp/menu2.txt"
grep -q ' Turn capture on…$' "$tmp/menu2.txt" || { echo "FAIL: the menu did not follow the change" >&2; exit 1; }
"${bus[@]}" get-property "$name" /StatusNotifierItem org.kde.StatusNotifierItem ToolTip
echo "ok: tray menu read, Pause capture clicked, the daemon declined capture, the menu followed; screenshots in $out"
