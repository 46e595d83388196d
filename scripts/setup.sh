#!/usr/bin/env bash
# make setup: everything Pond needs to build, test and run on this machine, idempotent.
# Each phase's wall time is appended to $POND_CACHE/setup-timings.tsv (docs/build.md reads it).
source "$(dirname "$0")/lib.sh"

say "Pond set-up; caches in $POND_CACHE"
t0=$SECONDS
# The Debian phase ends with a check of every file the later phases read, so a missing package
# stops set-up here, with its name, rather than 25 minutes into the native build.
step apt "$POND_ROOT/scripts/apt.sh"
# Downloads first (seconds each), so a network problem shows before the long build.
step onnxruntime "$POND_ROOT/scripts/onnxruntime.sh" >/dev/null
step test-model "$POND_ROOT/scripts/testmodel.sh" >/dev/null
step mcp-client "$POND_ROOT/scripts/mcpclient.sh" >/dev/null
step moto "$POND_ROOT/scripts/moto-venv.sh" >/dev/null
step native "$POND_ROOT/scripts/native.sh" build
say "building pond"
step go-build make -s -C "$POND_ROOT" build
say "set-up finished in $((SECONDS - t0))s; try: ./bin/pond doctor"
