#!/usr/bin/env bash
# Builds Pond's one native library, libpond_native.a: lancedb-go's Rust crate (from the Go
# module, whose prebuilt binaries live on GitHub and cannot be fetched here) plus Pond's own
# module (store/lance/native), compiled together from the Rust crate registry.
#
#   native.sh dir     print the cache directory for the current inputs (fast; used by make)
#   native.sh build   build unless a verified library for these inputs is cached
#   native.sh verify  exit non-zero unless the cached library is complete and intact
#   native.sh prune   remove cached builds for other inputs but the two most recent (build does)
#
# POND_NATIVE_PROFILE=size selects the release build (make release): the same recipe compiled
# for size, with link-time optimisation, in a cargo target folder of its own so that neither
# build invalidates the other's objects. It is not part of make setup or CI: a cold build takes
# over an hour here.
#
# The cache key hashes every input: lancedb-go's version, Pond's crate (sources, lock, header),
# the recipe (native-recipe.sh), the Rust compiler and the target. A changed input is a new
# directory; a directory without its stamp, or whose library no longer matches the stamp, is
# rebuilt.
source "$(dirname "$0")/lib.sh"

# What goes into the library (and so into the cache key) is in native-recipe.sh; this script
# only keys, locks, stamps and prunes the cache, so changing how it does that rebuilds nothing.
source "$(dirname "$0")/native-recipe.sh"

case ${POND_NATIVE_PROFILE:-dev} in
dev) profile= ;;
size)
  # Every CARGO_PROFILE_ variable is part of the cache key (see key), so these are keyed too.
  # Unwinding stays on: lancedb-go turns a Rust panic into an error at its C boundary.
  export CARGO_PROFILE_RELEASE_OPT_LEVEL=s
  export CARGO_PROFILE_RELEASE_LTO=fat
  export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
  export CARGO_TARGET_DIR=$POND_CACHE/native/target-size
  profile=size-
  ;;
*) die "POND_NATIVE_PROFILE is dev or size, not $POND_NATIVE_PROFILE" ;;
esac

key() {
  {
    echo "$LANCEDB_GO_MODULE@$LANCEDB_GO_VERSION $lancedb_go_sum"
    (cd "$crate" && sha256sum Cargo.toml Cargo.lock pond_native.h src/*.rs)
    sha256sum <"$POND_ROOT/scripts/native-recipe.sh"
    rustc --version
    env | grep '^CARGO_PROFILE_' | sort
  } | sha256sum | cut -c1-16
}

dir() { echo "$POND_CACHE/native/${LANCEDB_GO_VERSION}-$profile$(key)-$(os_arch)"; }

stamp_ok() {
  local d=$1
  [[ -f $d/build.json && -f $d/libpond_native.a && -f $d/include/lancedb.h && -f $d/include/pond_native.h ]] || return 1
  local want; want=$(sed -n 's/.*"sha256": *"\([0-9a-f]*\)".*/\1/p' "$d/build.json")
  [[ -n $want && $(sha256_of "$d/libpond_native.a") == "$want" ]]
}

# prune KEEP: earlier builds for other inputs are half a gigabyte each; keep KEEP and the two
# most recent others (another checkout on another branch may still link one of them). A fresh
# machine has no other: that is not a failure (it once failed set-up right after its build).
prune() {
  local keep=$1
  ls -1dt "$POND_CACHE/native/${LANCEDB_GO_VERSION}-"*"-$(os_arch)" 2>/dev/null |
    { grep -v -x -F "$keep" || true; } | tail -n +3 | xargs -r rm -rf
}

build() {
  local out; out=$(dir)
  if stamp_ok "$out"; then
    note "native library up to date: $out"
    return 0
  fi
  # Several checkouts (git worktrees) share the cache, its source folder and cargo's target
  # folder: one build at a time. A build that waited may find its library built meanwhile.
  mkdir -p "$POND_CACHE/native"
  exec 9>"$POND_CACHE/native/build.lock"
  if ! flock -n 9; then
    note "another native build is running; waiting for it"
    flock 9
  fi
  if stamp_ok "$out"; then
    note "native library up to date: $out"
    return 0
  fi
  [[ -d $out ]] && note "cached native library at $out is incomplete or changed; rebuilding"
  command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs) and re-run make setup"
  command -v protoc >/dev/null || die "protoc not found: run scripts/apt.sh (package protobuf-compiler)"

  say "building the native library (Lance + pond-native); about 25 minutes on 2 idle cores the first time"
  local t0=$SECONDS log=$POND_CACHE/native/build.log
  mkdir -p "$(dirname "$log")"
  compile "$log"
  local secs=$((SECONDS - t0))
  local rss_kb; rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log.time")

  local tmp=$out.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp/include"
  cp "$CARGO_TARGET_DIR/release/libpond_native.a" "$tmp/"
  cp "$native_src/lancedb-go/include/lancedb.h" "$crate/pond_native.h" "$tmp/include/"
  local sum size
  sum=$(sha256_of "$tmp/libpond_native.a")
  size=$(stat -c %s "$tmp/libpond_native.a")
  cat >"$tmp/build.json" <<JSON
{
  "lancedb_go": "$LANCEDB_GO_VERSION",
  "lancedb": "$LANCEDB_CRATE_VERSION",
  "key": "$(basename "$out")",
  "rustc": "$(rustc --version)",
  "built_at": "$(date -u +%FT%TZ)",
  "build_seconds": $secs,
  "cargo_peak_rss_kb": ${rss_kb:-0},
  "size_bytes": $size,
  "sha256": "$sum"
}
JSON
  rm -rf "$out"
  mv "$tmp" "$out"
  prune "$out"
  note "built $out/libpond_native.a ($((size / 1048576)) MiB) in ${secs}s, cargo peak RSS $((${rss_kb:-0} / 1024)) MiB"
}

case ${1:-build} in
dir) dir ;;
build) build ;;
verify) stamp_ok "$(dir)" || die "native library missing or damaged at $(dir): run make setup" ;;
prune) prune "$(dir)" ;;
*) die "usage: native.sh dir|build|verify|prune" ;;
esac
