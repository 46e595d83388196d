#!/usr/bin/env bash
# ONNX Runtime, the version github.com/yalue/onnxruntime_go v1.27.0 is written against, taken
# from the npm package onnxruntime-node (the registry this machine reaches), checksummed, cached.
# Prints the library's path.
source "$(dirname "$0")/lib.sh"

[[ $(os_arch) == linux-amd64 ]] || die "set-up fetches ONNX Runtime for linux-amd64 only (this is $(os_arch)); set POND_ONNXRUNTIME_LIB to your own libonnxruntime $ORT_VERSION or newer"

lib=$POND_CACHE/onnxruntime/$ORT_VERSION/libonnxruntime.so.1
if verify "$lib" "$ORT_LIB_SHA256"; then
  echo "$lib"
  exit 0
fi
say "fetching ONNX Runtime $ORT_VERSION (npm onnxruntime-node, 86 MB)"
tgz=$POND_CACHE/downloads/onnxruntime-node-$ORT_VERSION.tgz
fetch "https://registry.npmjs.org/onnxruntime-node/-/onnxruntime-node-$ORT_VERSION.tgz" "$tgz" "$ORT_NPM_TARBALL_SHA256"
tmp=$(mktemp -d "$POND_CACHE/downloads/ort.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
got=$(sha256_of "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1")
[[ $got == "$ORT_LIB_SHA256" ]] || die "libonnxruntime.so.1 checksum $got, want $ORT_LIB_SHA256"
mkdir -p "$(dirname "$lib")"
mv -f "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$lib"
echo "$lib"
