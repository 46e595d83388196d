#!/usr/bin/env bash
# make release: the download a user installs — a stripped pond, ONNX Runtime beside it (where
# paths.ONNXRuntime looks first), and the desktop entry and icon that `fyne package` makes from
# FyneApp.toml — as dist/pond-<version>-linux-<arch>.tar.xz, with the size of each part printed.
#
# The native library is built for size (POND_NATIVE_PROFILE=size: opt-level s, fat LTO, one
# codegen unit; scripts/native.sh), a build of its own that takes about an hour cold on 2 cores
# and is cached beside make build's, so make release is not part of make setup or CI (which test
# pond install on the make build binary). The link adds --gc-sections, dropping the Lance and
# DataFusion code Pond never calls, and -s -w drop Go's symbol and DWARF tables.
source "$(dirname "$0")/lib.sh"

export POND_NATIVE_PROFILE=size
"$POND_ROOT/scripts/native.sh" build
native_dir=$("$POND_ROOT/scripts/native.sh" dir)
"$POND_ROOT/scripts/native.sh" verify >/dev/null
ort=$POND_CACHE/onnxruntime/$ORT_VERSION/libonnxruntime.so.1
[[ -f $ort ]] || die "ONNX Runtime $ORT_VERSION is not in the cache ($ort): run make setup"
version=${VERSION:-$(git -C "$POND_ROOT" describe --tags --always --dirty 2>/dev/null || echo dev)}
arch=$(go env GOARCH)
name=pond-$version-linux-$arch
dist=$POND_ROOT/dist
work=$dist/$name
rm -rf "$work" "$dist/$name.tar.xz"
mkdir -p "$work"

say "building $name"
export CGO_CFLAGS="-O2 -I$native_dir/include" CGO_LDFLAGS="-L$native_dir -Wl,-z,noexecstack"
(cd "$POND_ROOT" && go build -trimpath -tags sqlite_fts5 \
  -ldflags "-s -w -X main.version=$version -extldflags=-Wl,--gc-sections" -o "$work/pond" .)

# The fyne command, pinned in scripts/fynetool, built once into the cache.
fyne=$POND_CACHE/bin/fyne-$(sha256sum "$POND_ROOT/scripts/fynetool/go.sum" | cut -c1-12)
if [[ ! -x $fyne ]]; then
  say "building the fyne command (scripts/fynetool)"
  mkdir -p "$(dirname "$fyne")"
  (cd "$POND_ROOT/scripts/fynetool" && go build -o "$fyne.tmp" fyne.io/tools/cmd/fyne && mv "$fyne.tmp" "$fyne")
fi

say "packaging"
pkg=$(mktemp -d)
trap 'rm -rf "$pkg"' EXIT
# fyne package reads FyneApp.toml (name, id, icon, the desktop entry's fields) from the source
# folder and lays out usr/local/{bin,share/applications,share/pixmaps}.
(cd "$POND_ROOT" && "$fyne" package --os linux --exe "$work/pond" --name Pond --release >/dev/null 2>"$pkg/log") ||
  { cat "$pkg/log" >&2; die "fyne package failed"; }
tar -xJf "$POND_ROOT/Pond.tar.xz" -C "$pkg" && rm -f "$POND_ROOT/Pond.tar.xz"
mkdir -p "$work/share"
cp -r "$pkg"/*/usr/local/share/. "$work/share/"
cp "$ort" "$work/"
cat >"$work/README" <<TXT
Pond $version for Linux ($arch)

  ./pond install      the daemon as a login service, the tray at login, Pond in your agents
  ./pond tray         the desktop app now
  ./pond --help       everything else

Keep libonnxruntime.so.1 beside pond (semantic search loads it from there).
share/ holds a menu entry and its icon: copy share/* into ~/.local/share/ to add Pond to
your applications menu.
TXT
tar -C "$dist" -cJf "$dist/$name.tar.xz" "$name"

size() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
note "pond                 $(mb "$(size "$work/pond")")"
note "libonnxruntime.so.1  $(mb "$(size "$work/libonnxruntime.so.1")")"
note "installed, all       $(mb "$(du -sb "$work" | cut -f1)")"
note "download ($name.tar.xz) $(mb "$(size "$dist/$name.tar.xz")")"
echo "$dist/$name.tar.xz"
