#!/usr/bin/env bash
# desktop-screens.sh POND OUT: screenshots of the desktop app's windows under Xvfb, one tray run
# per window (pond tray --open <window>), against a real `pond daemon` in a temporary HOME
# holding the Claude Code fixtures. Writes OUT/<window>.png (the root window, cropped to the
# window). Needs xvfb, dbus, imagemagick (scripts/apt.sh). README's pictures come from here.
set -euo pipefail
pond=$(realpath "$1")
out=$(realpath -m "${2:-docs/screens}")
tmp=$(mktemp -d)
mkdir -p "$out"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
export HOME=$tmp/home XDG_RUNTIME_DIR=$tmp/run LANG=en_US.UTF-8 DISPLAY=:${POND_XVFB_DISPLAY:-88} TZ=UTC
mkdir -p "$HOME/.claude" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
cp -r "$(dirname "$0")/../adapters/claudecode/testdata/projects" "$HOME/.claude/projects"

Xvfb "$DISPLAY" -screen 0 1024x720x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 & pids+=($!)
dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" >"$tmp/bus.log" 2>&1 & pids+=($!)
export DBUS_SESSION_BUS_ADDRESS=unix:path=$tmp/bus
"$pond" daemon >"$tmp/daemon.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do [[ -S $XDG_RUNTIME_DIR/pond/pond.sock ]] && break; sleep 0.1; done
"$pond" consent grant >/dev/null 2>&1
"$pond" sync >/dev/null 2>&1

shot() { # window [extra tray flags…]
  local win=$1; shift
  "$pond" tray --open "$win" "$@" >"$tmp/tray-$win.log" 2>&1 &
  local tray=$!
  sleep "${POND_SCREEN_WAIT:-6}"
  import -window root "$tmp/$win-root.png"
  kill "$tray" 2>/dev/null || true
  wait "$tray" 2>/dev/null || true
  # the window sits at the top left of the bare X server; keep what it covers
  convert "$tmp/$win-root.png" -trim +repage "$out/$win.png"
  echo "$out/$win.png"
}
shot search --query test
shot transcript --query test
shot resume --query test
shot settings
shot privacy
shot erase --query test
shot adapters
shot consent
