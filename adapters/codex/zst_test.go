package codex

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// TestCompressedCap: a small .zst that expands past the decompression cap (here a zstd "bomb"
// of 48 MiB of padding after the real rollout) is read up to the cap: what came before is kept,
// the rest is reported as malformed at the line where reading stopped, and the cursor takes the
// file's stamp, so it is not decompressed again until it changes.
func TestCompressedCap(t *testing.T) {
	plain, err := os.ReadFile(zstSource)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(plain, []byte("\n"))
	bomb := append(append([]byte{}, plain...), `{"type":"event_msg","payload":{"type":"pad","text":"`...)
	bomb = append(bomb, bytes.Repeat([]byte("x"), 48<<20)...)
	bomb = append(bomb, "\"}}\n"...)
	path := filepath.Join(t.TempDir(), filepath.Base(zstTarget))
	writeFile(t, path, compress(t, bomb))
	if st, _ := os.Stat(path); st.Size() > 1<<20 {
		t.Fatalf("the bomb is %d bytes compressed; want a small file", st.Size())
	}

	want, _ := readFile(t, zstTarget)
	var c adaptertest.Collector
	env := adapters.Env{Limits: adapters.Limits{DecompressedBytes: int64(len(plain)) + 1<<20, LineBytes: 64 << 20}}
	cur, err := New().Read(t.Context(), env, sourceOf(t, path), adapters.Cursor{}, &c)
	if err != nil {
		t.Fatalf("read: %v; want the rest reported, not an error", err)
	}
	if cur.Stamp != sourceOf(t, path).Stamp {
		t.Errorf("cursor stamp %q, want the file's", cur.Stamp)
	}
	if len(c.Bad) != 1 || c.Bad[0].At.Line != lines+1 || !strings.Contains(c.Bad[0].What, adapters.ErrTooLarge.Error()) {
		t.Errorf("malformed reports %v; want one at line %d saying the cap was reached", c.Bad, lines+1)
	}
	if got, want := len(c.Messages()), len(want.Messages()); got != want {
		t.Errorf("read %d messages before the cap, want the rollout's %d", got, want)
	}
}

// FuzzReadCompressed feeds arbitrary bytes as a .jsonl.zst (seeds: the fixture whole and cut
// short at several points, and compressed hostile rollouts): reading never panics, and every
// event passes the validator; an error is allowed (a damaged file is unreadable).
func FuzzReadCompressed(f *testing.F) {
	data, err := os.ReadFile(zstTarget)
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{0, 4, 13, len(data) / 3, len(data) / 2, len(data) - 1, len(data)} {
		f.Add(data[:n])
	}
	for _, v := range adaptertest.Hostile() {
		f.Add(compress(f, []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"`+mainID+`","cwd":"/w"}}`+"\n"+
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":`+v+`}]}}`+"\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), filepath.Base(zstTarget))
		writeFile(t, path, data)
		var c adaptertest.Collector
		env := adapters.Env{Limits: adapters.Limits{DecompressedBytes: 1 << 20, LineBytes: 64 << 10}}
		_, _ = New().Read(t.Context(), env, sourceOf(t, path), adapters.Cursor{}, &c)
	})
}
