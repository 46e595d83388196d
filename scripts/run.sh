#!/usr/bin/env bash
# make run: set up what is missing (make setup is idempotent: seconds when everything is cached),
# then start Pond the way this machine can show it. With a desktop session, the tray: it starts
# the daemon (the login service when installed, else `pond daemon`) and asks for capture consent
# on first run. Without one (SSH, a container, a server), the daemon in the foreground.
source "$(dirname "$0")/lib.sh"

"$POND_ROOT/scripts/setup.sh"
pond="$POND_ROOT/bin/pond"

desktop=
case "$(uname -s)" in
Darwin) desktop=yes ;;
*) [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]] && desktop=yes ;;
esac

if [[ -n $desktop ]]; then
	say "starting the tray (it starts the daemon); quit it from its menu, the daemon keeps running"
	exec "$pond" tray
fi

if "$pond" status --format json 2>/dev/null | grep -q '"daemon": *{'; then
	say "no desktop session here, and the daemon already runs: $pond status shows what it holds"
	exit 0
fi
say "no desktop session here (DISPLAY and WAYLAND_DISPLAY are unset): running the daemon in the foreground; Ctrl-C stops it"
if ! "$pond" consent status --format json 2>/dev/null | grep -q '"granted"'; then
	say "capture waits for your consent: run $pond consent grant (from another shell; the daemon picks it up)"
fi
exec "$pond" daemon
