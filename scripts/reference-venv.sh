#!/usr/bin/env bash
# A Python venv in the cache with the pinned PyPI packages that embed/testdata/make_reference.py
# uses to write the reference token ids and vectors the Go tests compare against. Not part of
# `make setup`: the references are committed, so `make test` needs no Python.
source "$(dirname "$0")/lib.sh"

venv=$POND_CACHE/refvenv
if [[ ! -x $venv/bin/python ]]; then
  say "creating $venv"
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q tokenizers==0.22.2 onnxruntime=="$ORT_VERSION" numpy sentencepiece==0.2.1 protobuf
sdist=$POND_CACHE/downloads/sentencepiece-0.2.1.tar.gz
if [[ ! -f $sdist ]]; then
  "$venv/bin/pip" download -q --no-deps --no-binary :all: sentencepiece==0.2.1 -d "$POND_CACHE/downloads"
fi
echo "POND_SENTENCEPIECE_SDIST=$sdist $venv/bin/python"
