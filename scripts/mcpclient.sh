#!/usr/bin/env bash
# The independent MCP client the end-to-end test runs against `pond mcp`: the official
# TypeScript SDK from the npm registry, at the versions and sha512 integrity hashes that
# scripts/mcpclient/package-lock.json pins, installed into the cache. Prints its directory.
source "$(dirname "$0")/lib.sh"

src=$POND_ROOT/scripts/mcpclient
lock_sum=$(sha256_of "$src/package-lock.json")
dir=$POND_CACHE/mcpclient/${lock_sum:0:16}
if [[ -f $dir/.installed && -f $dir/node_modules/@modelcontextprotocol/sdk/package.json ]]; then
  cp "$src/client.mjs" "$dir/client.mjs"
  echo "$dir"
  exit 0
fi
command -v npm >/dev/null || die "npm is not installed (scripts/apt.sh installs nodejs and npm)"
say "installing the MCP test client (@modelcontextprotocol/sdk from the npm registry)"
mkdir -p "$dir"
cp "$src/package.json" "$src/package-lock.json" "$src/client.mjs" "$dir/"
# npm ci installs exactly the lock file's versions and checks each tarball's integrity hash.
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
touch "$dir/.installed"
echo "$dir"
