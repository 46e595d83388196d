#!/usr/bin/env bash
# Debian packages Pond needs to build and test: a C toolchain for cgo and Lance's native code,
# protoc and the protobuf well-known types for Lance's build scripts, the X11/GL headers Fyne's
# GLFW needs, Xvfb + D-Bus for the desktop tests, and strace for the test that checks a capture is
# synced before its cursor (daemon/capture), and python3-venv for the Python agents make verify-agents
# runs from venvs (scripts/hermes-venv.sh, scripts/aider-venv.sh).
#
#   apt.sh          install what is missing (one dpkg query when nothing is), then check
#   apt.sh check    only check: every file the later phases rely on is there, else exit 1
#                   naming the package to install
#
# Each package is listed with one file the build reads from it, so the check catches a package
# that is "installed" but incomplete, and one that a recommends-only dependency used to bring in
# (libprotobuf-dev, which protobuf-compiler only recommends). POND_PREFLIGHT_ROOT prefixes every
# path; the tests point it at a tree with files missing.
source "$(dirname "$0")/lib.sh"

# package  file it provides that a later phase needs
table=(
  "gcc              /usr/bin/gcc"
  "g++              /usr/bin/g++"
  "make             /usr/bin/make"
  "libc6-dev        /usr/include/stdio.h"
  "pkg-config       /usr/bin/pkg-config"
  "git              /usr/bin/git"
  "curl             /usr/bin/curl"
  "ca-certificates  /etc/ssl/certs/ca-certificates.crt"
  "unzip            /usr/bin/unzip"
  "time             /usr/bin/time"
  "protobuf-compiler /usr/bin/protoc"
  "libprotobuf-dev  /usr/include/google/protobuf/empty.proto"
  "libgl1-mesa-dev  /usr/include/GL/gl.h"
  "libx11-dev       /usr/include/X11/Xlib.h"
  "libxcursor-dev   /usr/include/X11/Xcursor/Xcursor.h"
  "libxrandr-dev    /usr/include/X11/extensions/Xrandr.h"
  "libxinerama-dev  /usr/include/X11/extensions/Xinerama.h"
  "libxi-dev        /usr/include/X11/extensions/XInput2.h"
  "libxxf86vm-dev   /usr/include/X11/extensions/xf86vmode.h"
  "xvfb             /usr/bin/Xvfb"
  "xauth            /usr/bin/xauth"
  "dbus             /usr/bin/dbus-daemon"
  "dbus-x11         /usr/bin/dbus-launch"
  "imagemagick      /usr/bin/import"
  "strace           /usr/bin/strace"
  "python3-venv     /usr/lib/python3.11/ensurepip/__init__.py"
)

# check: every listed file exists; prints the packages to install and fails otherwise.
check() {
  local root=${POND_PREFLIGHT_ROOT:-} row pkg file missing=()
  for row in "${table[@]}"; do
    read -r pkg file <<<"$row"
    [[ -e $root$file ]] || missing+=("$pkg ($file)")
  done
  [[ -n $root ]] || command -v npm >/dev/null || missing+=("npm (npm command)")
  if ((${#missing[@]} > 0)); then
    printf 'error: missing files the build needs; install their packages:\n' >&2
    printf '  %s\n' "${missing[@]}" >&2
    printf 'then re-run make setup (apt-get install %s)\n' "$(for m in "${missing[@]}"; do printf '%s ' "${m%% *}"; done)" >&2
    return 1
  fi
  note "Debian packages: every file the build needs is present"
}

install() {
  local row pkg file status missing=()
  for row in "${table[@]}"; do
    read -r pkg file <<<"$row"
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" && -e $file ]] || missing+=("$pkg")
  done
  # Node.js and npm run the MCP and agent-loader checks. A machine may already have them from
  # another source (NodeSource's nodejs bundles npm and conflicts with Debian's npm package), so
  # the Debian packages are asked for only when the npm command is absent.
  command -v npm >/dev/null || missing+=(nodejs npm)
  if ((${#missing[@]} > 0)); then
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  check
}

case ${1:-install} in
install) install ;;
check) check ;;
*) die "usage: apt.sh [install|check]" ;;
esac
