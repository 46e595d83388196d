#!/usr/bin/env bash
# Builds Pond's one native library, libpond_native.a: lancedb-go's Rust crate (from the Go
# module, whose prebuilt binaries live on GitHub and cannot be fetched here) plus Pond's own
# module (store/lance/native), compiled together from the Rust crate registry.
#
#   native.sh dir     print the cache directory for the current inputs (fast; used by make)
#   native.sh build   build unless a verified library for these inputs is cached
#   native.sh verify  exit non-zero unless the cached library is complete and intact
#
# The cache key hashes every input: lancedb-go's version, Pond's crate (sources, lock, header),
# this script, the Rust compiler and the target. A changed input is a new directory; a
# directory without its stamp, or whose library no longer matches the stamp, is rebuilt.
source "$(dirname "$0")/lib.sh"

crate=$POND_ROOT/store/lance/native
lancedb_go_sum='h1:ucM+KNN5J886OilSh4MRdyBa1sinHyrisoaswNISNFk='

# The cargo profile for a 2-core machine: no debug info and no incremental state to write,
# build scripts and proc-macros unoptimised (they run once); Lance itself keeps opt-level 3.
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_INCREMENTAL=false
export CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL=0
export CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_DEBUG=false
export CARGO_HOME=$POND_CACHE/cargo-home
export CARGO_TARGET_DIR=$POND_CACHE/native/target

key() {
  {
    echo "$LANCEDB_GO_MODULE@$LANCEDB_GO_VERSION $lancedb_go_sum"
    (cd "$crate" && sha256sum Cargo.toml Cargo.lock pond_native.h src/*.rs)
    sha256sum <"$0"
    rustc --version
    env | grep '^CARGO_PROFILE_' | sort
  } | sha256sum | cut -c1-16
}

dir() { echo "$POND_CACHE/native/${LANCEDB_GO_VERSION}-$(key)-$(os_arch)"; }

stamp_ok() {
  local d=$1
  [[ -f $d/build.json && -f $d/libpond_native.a && -f $d/include/lancedb.h && -f $d/include/pond_native.h ]] || return 1
  local want; want=$(sed -n 's/.*"sha256": *"\([0-9a-f]*\)".*/\1/p' "$d/build.json")
  [[ -n $want && $(sha256_of "$d/libpond_native.a") == "$want" ]]
}

# lock_versions LOCKFILE: "name version" lines, sorted.
lock_versions() {
  awk '/^\[\[package\]\]/{n="";v=""} /^name = /{n=$3} /^version = /{v=$3; print n, v}' "$1" | tr -d '"' | sort
}

prepare_lancedb_go() {
  local src=$1
  say "preparing lancedb-go $LANCEDB_GO_VERSION's crate"
  local info mod_dir mod_sum
  info=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "$LANCEDB_GO_MODULE@$LANCEDB_GO_VERSION")
  mod_dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$info")
  mod_sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$info")
  [[ $mod_sum == "$lancedb_go_sum" ]] || die "lancedb-go module checksum $mod_sum, want $lancedb_go_sum"
  rm -rf "$src"
  mkdir -p "$(dirname "$src")"
  cp -r "$mod_dir/rust" "$src"
  cp -r "$mod_dir/include" "$src/include"
  chmod -R u+w "$src"
  cp "$src/Cargo.lock" "$src/Cargo.lock.orig"

  # Its lancedb dependency is a git tag on GitHub; the same version is on the crate registry.
  local git_dep='lancedb = { git = "https://github.com/lancedb/lancedb.git", tag = "v0.22.1", default-features = false }'
  grep -qF "$git_dep" "$src/Cargo.toml" || die "lancedb-go's Cargo.toml no longer names $git_dep; update scripts/native.sh"
  sed -i "s|^lancedb = { git = .*|lancedb = { version = \"=$LANCEDB_CRATE_VERSION\", default-features = false }|" "$src/Cargo.toml"
  # Linked into libpond_native.a as a Rust library, not as a static library of its own.
  sed -i 's|^crate-type = \["cdylib", "staticlib"\]|crate-type = ["rlib"]|' "$src/Cargo.toml"
  grep -q '^crate-type = \["rlib"\]' "$src/Cargo.toml" || die "could not set lancedb-go's crate-type"
  sed -i 's|^source = "git+https://github.com/lancedb/lancedb.git?tag=v0.22.1#.*"|source = "registry+https://github.com/rust-lang/crates.io-index"|' "$src/Cargo.lock"
  (cd "$src" && cargo update -q -p lancedb)
  # Nothing but lancedb's source may have moved.
  local moved
  moved=$(diff <(lock_versions "$src/Cargo.lock.orig") <(lock_versions "$src/Cargo.lock") || true)
  [[ -z $moved ]] || die "cargo update -p lancedb moved other packages:
$moved"
  note "lancedb -> crate registry =$LANCEDB_CRATE_VERSION; no other lock entry moved"
}

# Crates built from a copy of their registry source whose crate root raises `recursion_limit`:
# Lance 0.37.0's deeply nested async code exceeds the query depth rustc 1.95 allows by default
# ("queries overflow the depth limit!"). Nothing else in them changes. Pond's Cargo.toml patches
# each to ../<name>.
raised_limit=(lance)

patch_crates() {
  local work=$1 c ver src
  # The registry sources come from lancedb-go's lock, where these crates are plain dependencies.
  (cd "$work/lancedb-go" && cargo fetch -q --locked)
  for c in "${raised_limit[@]}"; do
    ver=$(lock_versions "$work/lancedb-go/Cargo.lock" | awk -v n="$c" '$1 == n {print $2}')
    src=$(ls -d "$CARGO_HOME"/registry/src/*/"$c-$ver" | head -n 1)
    [[ -f $src/src/lib.rs ]] || die "registry source of $c $ver not found"
    rm -rf "${work:?}/$c.new"
    cp -rp "$src" "$work/$c.new"
    chmod -R u+w "$work/$c.new"
    sed -i '1i #![recursion_limit = "512"]' "$work/$c.new/src/lib.rs"
    # Keep an identical earlier copy: cargo rebuilds a path crate whose files look newer.
    if diff -rq "$work/$c.new" "$work/$c" >/dev/null 2>&1; then
      rm -rf "$work/$c.new"
    else
      rm -rf "${work:?}/$c"
      mv "$work/$c.new" "$work/$c"
    fi
    note "$c $ver: built with recursion_limit 512"
  done
}

# lock_buckets LOCKFILE: "name@compat version" lines, where compat is the semver-compatible range
# a version falls in (1.x.y -> 1, 0.3.y -> 0.3, 0.0.z -> 0.0.z).
lock_buckets() {
  lock_versions "$1" | awk '{
    split($2, v, /[.+-]/)
    compat = (v[1] != "0") ? v[1] : (v[2] != "0") ? "0." v[2] : "0.0." v[3]
    print $1 "@" compat, $2
  }' | sort
}

# check_pins: Pond's lock may add packages (its own dependencies) and drop unused ones, but
# wherever both locks resolve the same package in the same compatible range, the version must be
# lancedb-go's: nothing moved.
check_pins() {
  local ours=$1 theirs=$2 bad
  bad=$(join <(lock_buckets "$theirs") <(lock_buckets "$ours") | awk '$2 != $3 {print $1 ": lancedb-go " $2 ", pond-native " $3}')
  [[ -z $bad ]] || die "store/lance/native/Cargo.lock disagrees with lancedb-go's lock:
$bad"
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

  local work=$POND_CACHE/native/src
  prepare_lancedb_go "$work/lancedb-go"
  patch_crates "$work"
  rm -rf "$work/pond-native"
  mkdir -p "$work/pond-native"
  cp -r "$crate/Cargo.toml" "$crate/Cargo.lock" "$crate/src" "$work/pond-native/"
  check_pins "$work/pond-native/Cargo.lock" "$work/lancedb-go/Cargo.lock"

  say "building the native library (Lance + pond-native); about 25 minutes on 2 idle cores the first time"
  local t0=$SECONDS log=$POND_CACHE/native/build.log
  mkdir -p "$(dirname "$log")"
  # cargo's own progress bar goes to the terminal; the full log and GNU time's report to a file.
  if ! (cd "$work/pond-native" && /usr/bin/time -v -o "$log.time" cargo build --release --locked --lib 2> >(tee "$log" >&2)); then
    die "cargo build failed; see $log"
  fi
  local secs=$((SECONDS - t0))
  local rss_kb; rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log.time")

  local tmp=$out.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp/include"
  cp "$CARGO_TARGET_DIR/release/libpond_native.a" "$tmp/"
  cp "$work/lancedb-go/include/lancedb.h" "$crate/pond_native.h" "$tmp/include/"
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
  # Earlier builds for other inputs are half a gigabyte each; keep this one and the two most
  # recent others (another checkout on another branch may still link one of them).
  ls -1dt "$POND_CACHE/native/${LANCEDB_GO_VERSION}-"*"-$(os_arch)" 2>/dev/null | grep -v -x -F "$out" | tail -n +3 | xargs -r rm -rf
  note "built $out/libpond_native.a ($((size / 1048576)) MiB) in ${secs}s, cargo peak RSS $((${rss_kb:-0} / 1024)) MiB"
}

case ${1:-build} in
dir) dir ;;
build) build ;;
verify) stamp_ok "$(dir)" || die "native library missing or damaged at $(dir): run make setup" ;;
*) die "usage: native.sh dir|build|verify" ;;
esac
