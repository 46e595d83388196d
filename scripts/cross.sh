#!/usr/bin/env bash
# make cross: every package that uses no cgo, itself or through a dependency, vets and builds
# for macOS and Windows too, so the service, path and installer code for those systems at least
# compiles here. (The store, the tokenizer, SQLite and Fyne's drivers are cgo and are built for
# Linux only on this machine.)
set -euo pipefail
cd "$(dirname "$0")/.."
tags=sqlite_fts5
# Two lists: the packages whose dependency closure, as Linux builds it, holds no cgo package
# (built), and of those the ones whose tests need none either (vetted, which compiles the tests).
lists=$(go list -deps -test -tags "$tags" -json ./... | python3 -c '
import json, sys
dec, buf, pkgs = json.JSONDecoder(), sys.stdin.read(), {}
i = 0
while i < len(buf):
    while i < len(buf) and buf[i].isspace():
        i += 1
    if i >= len(buf):
        break
    p, i = dec.raw_decode(buf, i)
    pkgs[p["ImportPath"]] = p
# The standard library has pure-Go fallbacks (net, os/user); cgo elsewhere has none, and Fyne
# needs cgo on every desktop system even where a package of it has no cgo file on Linux.
cgo = {n.split(" ")[0] for n, p in pkgs.items() if (p.get("CgoFiles") and not p.get("Standard")) or n.startswith("fyne.io/")}
def pure(n):
    return n not in cgo and not cgo & {d.split(" ")[0] for d in pkgs[n].get("Deps", [])}
build, vet = [], []
for n, p in sorted(pkgs.items()):
    if " " in n or not n.startswith("github.com/pondhq/pond") or n.endswith(".test") or not pure(n):
        continue
    if p.get("GoFiles"):
        build.append(n)
    tests = [t for t in pkgs if t.startswith((n + " [", n + "_test [")) and not t.endswith(".test")]
    if all(pure(t) for t in tests):
        vet.append(n)
print(" ".join(build))
print(" ".join(vet))
')
build=$(sed -n 1p <<<"$lists")
vet=$(sed -n 2p <<<"$lists")
for os in darwin windows; do
	printf '==> %s: build of %d packages without cgo, vet of the %d whose tests need none\n' "$os" "$(wc -w <<<"$build")" "$(wc -w <<<"$vet")" >&2
	GOOS=$os GOARCH=amd64 CGO_ENABLED=0 go build -tags "$tags" -o /dev/null $build
	GOOS=$os GOARCH=amd64 CGO_ENABLED=0 go vet -tags "$tags" $vet
done
