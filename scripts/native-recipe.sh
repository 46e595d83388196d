#!/usr/bin/env bash
# The recipe of Pond's native library, sourced by native.sh: where its sources come from, how
# they are patched and checked, the cargo profile, and the build itself. Everything here decides
# the library's bytes, so native.sh hashes this file into the cache key; keep anything else
# (locking, stamps, pruning the cache) out of it.

crate=$POND_ROOT/store/lance/native
# Where compile lays out the sources it builds (lancedb-go's crate, patched crates, Pond's).
native_src=$POND_CACHE/native/src
lancedb_go_sum='h1:ucM+KNN5J886OilSh4MRdyBa1sinHyrisoaswNISNFk='

# The cargo profile for a 2-core machine: no debug info and no incremental state to write,
# build scripts and proc-macros unoptimised (they run once); Lance itself keeps opt-level 3.
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_INCREMENTAL=false
export CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL=0
export CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_DEBUG=false
export CARGO_HOME=$POND_CACHE/cargo-home
export CARGO_TARGET_DIR=$POND_CACHE/native/target

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

# compile LOG: lay out the sources under the cache and build libpond_native.a into
# $CARGO_TARGET_DIR/release; cargo's own progress goes to the terminal, its log and GNU time's
# report to LOG and LOG.time.
compile() {
  local log=$1 work=$native_src
  prepare_lancedb_go "$work/lancedb-go"
  patch_crates "$work"
  rm -rf "$work/pond-native"
  mkdir -p "$work/pond-native"
  cp -r "$crate/Cargo.toml" "$crate/Cargo.lock" "$crate/src" "$work/pond-native/"
  check_pins "$work/pond-native/Cargo.lock" "$work/lancedb-go/Cargo.lock"
  if ! (cd "$work/pond-native" && /usr/bin/time -v -o "$log.time" cargo build --release --locked --lib 2> >(tee "$log" >&2)); then
    die "cargo build failed; see $log"
  fi
}
