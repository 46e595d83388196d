#!/usr/bin/env bash
# The Python venv the object-storage tests run moto's S3 server from (moto[s3] 5.2.5 and the
# Flask it serves with), pinned with hashes in scripts/moto/requirements.txt and installed with
# pip install --require-hashes into the cache, one folder per requirements file. moto answers a
# second `If-None-Match: *` put of one key with 412, the conditional put Lance's commits on S3
# rely on. Prints the venv's folder; `moto-venv.sh path` prints it without installing (the
# Makefile exports POND_MOTO_SERVER from it). About 140 MB. Needs python3 with venv.
source "$(dirname "$0")/lib.sh"
cd "$POND_ROOT"
req=scripts/moto/requirements.txt
venv="$POND_CACHE/moto-venv/$(sha256_of "$req" | cut -c1-16)"
if [[ ${1:-} == path ]]; then
	echo "$venv"
	exit 0
fi
pinned_venv "$venv" "$req" "${POND_MOTO_PYTHON:-python3}" "moto's S3 server for the object-storage tests"
echo "$venv"
