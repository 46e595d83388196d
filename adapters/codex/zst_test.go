package codex

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

var update = flag.Bool("update", false, "rewrite generated testdata (events.golden, the compressed rollout)")

// zstSource is the plain rollout the committed archived .jsonl.zst is made from; it lives outside
// sessions/ so that Scan does not see it.
const (
	zstSource = "testdata/compressed/rollout-2026-02-01T08-00-00-0195a0c4-9999-7888-8777-666655554444.jsonl"
	zstTarget = "testdata/codex/archived_sessions/rollout-2026-02-01T08-00-00-0195a0c4-9999-7888-8777-666655554444.jsonl.zst"
)

// TestCompressedFixture checks that the committed .jsonl.zst holds exactly its source; with
// -update it is written again from the source.
func TestCompressedFixture(t *testing.T) {
	want, err := os.ReadFile(zstSource)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(zstTarget), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(zstTarget, compress(t, want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(zstTarget)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCompressedFixture -update)", err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	got, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s does not decompress to %s (run go test -run TestCompressedFixture -update)", zstTarget, zstSource)
	}
}

// compress is data as a zstd stream, as Codex writes archived rollouts.
func compress(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	enc, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCompressedCorrupt: a .zst that does not decompress is an unreadable source, reported as
// an error after whatever came before the damage.
func TestCompressedCorrupt(t *testing.T) {
	data, err := os.ReadFile(zstTarget)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(zstTarget))
	writeFile(t, path, append(data[:len(data)/2:len(data)/2], "garbage"...))
	var c adaptertest.Collector
	if _, err := New().Read(t.Context(), adapters.Env{}, sourceOf(t, path), adapters.Cursor{}, &c); err == nil {
		t.Errorf("corrupt .zst read without error")
	}
}
