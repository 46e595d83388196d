#!/usr/bin/env bash
# make setup: everything Pond needs to build, test and run on this machine, idempotent.
# Each phase's wall time is appended to $POND_CACHE/setup-timings.tsv (docs/build.md reads it).
source "$(dirname "$0")/lib.sh"

say "Pond set-up; caches in $POND_CACHE"
t0=$SECONDS
step apt "$POND_ROOT/scripts/apt.sh"
step native "$POND_ROOT/scripts/native.sh" build
step onnxruntime "$POND_ROOT/scripts/onnxruntime.sh" >/dev/null
step test-model "$POND_ROOT/scripts/testmodel.sh" >/dev/null
step mcp-client "$POND_ROOT/scripts/mcpclient.sh" >/dev/null
say "building pond"
step go-build make -s -C "$POND_ROOT" build
say "set-up finished in $((SECONDS - t0))s; try: ./bin/pond doctor"
