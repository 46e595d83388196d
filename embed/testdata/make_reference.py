#!/usr/bin/env python3
"""Writes the reference data that Pond's Go tests compare against, from an independent pipeline:
the Python `tokenizers` and `onnxruntime` packages from PyPI.

  tokens.json    token ids, for the test model's WordPiece tokenizer.json and for
                 unigram-tokenizer.json (SentencePiece-Unigram), of sentences.json plus edge
                 cases (empty, whitespace, very long inputs cut at 512 tokens)
  vectors.json   "passage: " + each of sentences.json through the test model, one text per run
                 (no padding), mean-pooled over the attention mask and L2-normalised

unigram-tokenizer.json is made here too, when missing: the SentencePiece Unigram model that the
PyPI `sentencepiece` sdist ships as test/test_ja_model.model, converted by the `tokenizers`
package's own `SentencePieceUnigramTokenizer.from_spm` (Precompiled normaliser + Metaspace, the
pipeline of XLM-RoBERTa's tokenizer.json), with XLM-R's `<s> … </s>` post-processor.

Run it with the pinned packages in a venv outside the repository (scripts/reference-venv.sh
creates one):

  ~/.cache/pond/refvenv/bin/python embed/testdata/make_reference.py

It needs POND_TEST_MODEL_DIR (`make print-env` shows it).
"""

import json
import os
import sys
import tarfile

import numpy as np
import onnxruntime as ort
import tokenizers
from tokenizers import Tokenizer
from tokenizers.processors import TemplateProcessing

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_TOKENS = 512
PINNED = {"tokenizers": "0.22.2", "onnxruntime": "1.24.1", "sentencepiece": "0.2.1"}


def edge_cases():
    long_en = "The build failed again because the cache was stale. " * 120
    long_mixed = ("Datenbank データベース база данных 数据库 database 🚀 " * 200).strip()
    long_code = "\n".join(f"func f{i}(x int) int {{ return x*{i} + {i % 7} }}" for i in range(300))
    one_word = "supercalifragilisticexpialidocious" * 40
    return ["", " ", "\t\n", "a", "Hello world!", long_en, long_mixed, long_code, one_word]


def unigram_tokenizer(path):
    """Converts the sentencepiece sdist's Japanese Unigram test model to a tokenizer.json."""
    if os.path.exists(path):
        return
    import sentencepiece
    import sentencepiece.sentencepiece_model_pb2 as pb
    from tokenizers.implementations import SentencePieceUnigramTokenizer

    sys.modules["sentencepiece_model_pb2"] = pb  # where from_spm looks for the protobuf module
    sdist = os.environ.get("POND_SENTENCEPIECE_SDIST")
    if not sdist:
        sys.exit("unigram-tokenizer.json is missing: set POND_SENTENCEPIECE_SDIST to sentencepiece-0.2.1.tar.gz (pip download --no-binary :all: --no-deps sentencepiece==0.2.1)")
    member = "sentencepiece-0.2.1/test/test_ja_model.model"
    with tarfile.open(sdist) as tf:
        data = tf.extractfile(member).read()
    tmp = path + ".model"
    with open(tmp, "wb") as f:
        f.write(data)
    tok = SentencePieceUnigramTokenizer.from_spm(tmp)
    os.remove(tmp)
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                            special_tokens=[("<s>", bos), ("</s>", eos)])
    tok.save(path, pretty=False)
    print("wrote", path, "from", member, "with sentencepiece", sentencepiece.__version__)


def encode_all(path, texts):
    tok = Tokenizer.from_file(path)
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_TOKENS)
    out = []
    for t in texts:
        e = tok.encode(t, add_special_tokens=True)
        out.append({"text": t, "ids": e.ids, "truncated": len(e.overflowing) > 0})
    return out


def embed_all(model_dir, texts, prefix):
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_TOKENS)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    vecs = []
    for t in texts:
        e = tok.encode(prefix + t)
        feed = {
            "input_ids": np.array([e.ids], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids], dtype=np.int64),
        }
        hidden = sess.run(None, {n: feed[n] for n in names})[0][0]  # [tokens, dim]
        mask = np.array(e.attention_mask, dtype=np.float64)[:, None]
        v = (hidden.astype(np.float64) * mask).sum(0) / mask.sum()
        v /= np.linalg.norm(v)
        vecs.append([round(float(x), 7) for x in v])
    return vecs


def main():
    model_dir = os.environ.get("POND_TEST_MODEL_DIR")
    if not model_dir:
        sys.exit("set POND_TEST_MODEL_DIR (see `make print-env`)")
    got = {"tokenizers": tokenizers.__version__, "onnxruntime": ort.__version__}
    for k, v in got.items():
        if v != PINNED[k]:
            sys.exit(f"{k} {v} is installed; the references are pinned to {PINNED[k]}")
    with open(os.path.join(HERE, "sentences.json")) as f:
        sentences = json.load(f)
    unigram = os.path.join(HERE, "unigram-tokenizer.json")
    unigram_tokenizer(unigram)
    texts = sentences + edge_cases()
    tokens = {
        "generator": {"tokenizers": tokenizers.__version__, "max_tokens": MAX_TOKENS},
        "wordpiece": encode_all(os.path.join(model_dir, "tokenizer.json"), texts),
        "unigram": encode_all(unigram, texts),
    }
    with open(os.path.join(HERE, "tokens.json"), "w") as f:
        json.dump(tokens, f, ensure_ascii=False, indent=0)
    with open(os.path.join(model_dir, "pond-model.json")) as f:
        cfg = json.load(f)
    vectors = {
        "generator": {"onnxruntime": ort.__version__, "tokenizers": tokenizers.__version__,
                      "model": cfg["name"] + "@" + cfg.get("variant", ""), "prefix": cfg["passage_prefix"]},
        "vectors": embed_all(model_dir, sentences, cfg["passage_prefix"]),
    }
    with open(os.path.join(HERE, "vectors.json"), "w") as f:
        json.dump(vectors, f)
    print("wrote tokens.json and vectors.json")


if __name__ == "__main__":
    main()
