#!/usr/bin/env bash
# Debian packages Pond needs to build and test: a C toolchain for cgo and Lance's native code,
# protoc for Lance's build scripts, the X11/GL headers Fyne's GLFW needs, and Xvfb + D-Bus for
# the desktop tests. Installs only what is missing, so a second run costs one dpkg query.
source "$(dirname "$0")/lib.sh"

packages=(
  gcc g++ make libc6-dev pkg-config git curl ca-certificates unzip time
  protobuf-compiler
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  xvfb xauth dbus dbus-x11
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
# Node.js and npm run the MCP and agent-loader checks. A machine may already have them from
# another source (NodeSource's nodejs bundles npm and conflicts with Debian's npm package), so
# the Debian packages are asked for only when the npm command is absent.
command -v npm >/dev/null || missing+=(nodejs npm)
if ((${#missing[@]} == 0)); then
  note "Debian packages: all present"
  exit 0
fi
say "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
as_root apt-get update -qq
as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
