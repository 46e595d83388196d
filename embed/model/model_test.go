package model_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/model"
	"github.com/pondhq/pond/embed/onnx"
)

func testModelDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("POND_TEST_MODEL_DIR")
	if dir == "" || os.Getenv("POND_ONNXRUNTIME_LIB") == "" {
		t.Fatal("POND_TEST_MODEL_DIR and POND_ONNXRUNTIME_LIB must be set: run the tests with make test")
	}
	return dir
}

// loads is the real check the CLI runs: open the model on ONNX Runtime and embed a text.
func loads(t *testing.T) func(dir string) error {
	t.Helper()
	if _, err := onnx.Init(os.Getenv("POND_ONNXRUNTIME_LIB")); err != nil {
		t.Fatal(err)
	}
	return func(dir string) error {
		e, err := onnx.Open(dir)
		if err != nil {
			return err
		}
		defer e.Close()
		_, err = e.Embed(context.Background(), []string{"hello"}, embed.Query)
		return err
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// hub serves files in the Hugging Face layout: /NAME/resolve/REV/PATH answers with a redirect
// to a content URL (as Hugging Face does for large files), which honours Range requests.
type hub struct {
	t       *testing.T
	name    string
	rev     string
	files   map[string][]byte // path in the repo -> content
	mu      sync.Mutex
	ranges  []string // Range headers seen on content requests
	cutOnce map[string]int
	served  int64
}

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix := "/" + h.name + "/resolve/" + h.rev + "/"
	switch {
	case strings.HasPrefix(r.URL.Path, prefix):
		http.Redirect(w, r, "/cdn/"+strings.TrimPrefix(r.URL.Path, prefix), http.StatusFound)
	case strings.HasPrefix(r.URL.Path, "/cdn/"):
		path := strings.TrimPrefix(r.URL.Path, "/cdn/")
		b, ok := h.files[path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.mu.Lock()
		h.ranges = append(h.ranges, r.Header.Get("Range"))
		cut, cutNow := h.cutOnce[path]
		delete(h.cutOnce, path)
		h.mu.Unlock()
		if cutNow {
			// Send part of the body, then drop the connection: an interrupted download.
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.WriteHeader(http.StatusOK)
			w.Write(b[:cut])
			h.add(int64(cut))
			panic(http.ErrAbortHandler)
		}
		cw := &countingWriter{ResponseWriter: w}
		http.ServeContent(cw, r, path, time.Time{}, bytes.NewReader(b))
		h.add(cw.n)
	default:
		http.NotFound(w, r)
	}
}

func (h *hub) add(n int64) {
	h.mu.Lock()
	h.served += n
	h.mu.Unlock()
}

type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// testSpec is the test model published as a Hugging Face repository: the ONNX file and the
// tokenizer pinned by hash, the config trusted on first download.
func testSpec(t *testing.T) (model.Spec, map[string][]byte) {
	dir := testModelDir(t)
	onnxBytes, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	tokBytes, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := embed.LoadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"onnx/model_qint8.onnx": onnxBytes,
		"onnx/tokenizer.json":   tokBytes,
		"onnx/config.json":      []byte(`{"hidden_size": 384, "max_position_embeddings": 512}`),
	}
	spec := model.Spec{
		Name: "intfloat/e5-small-v2", Revision: "0123456789abcdef0123456789abcdef01234567", Config: cfg,
		Files: []model.File{
			{Path: "onnx/model_qint8.onnx", Name: "model.onnx", SHA256: sum(onnxBytes), Size: int64(len(onnxBytes))},
			{Path: "onnx/tokenizer.json", Name: "tokenizer.json", SHA256: sum(tokBytes)},
			{Path: "onnx/config.json", Name: "config.json"},
		},
	}
	return spec, files
}

func TestDownloadFollowsRedirectsVerifiesAndLoads(t *testing.T) {
	spec, files := testSpec(t)
	h := &hub{t: t, name: spec.Name, rev: spec.Revision, files: files}
	srv := httptest.NewServer(h)
	defer srv.Close()
	models := t.TempDir()
	var progressed bool
	inst := &model.Installer{ModelsDir: models, BaseURL: srv.URL, Check: loads(t),
		Progress: func(string, int64, int64) { progressed = true }}
	in, err := inst.Download(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(models, "intfloat", "e5-small-v2@"+spec.Revision); in.Dir != want {
		t.Errorf("installed in %s, want %s", in.Dir, want)
	}
	if !progressed {
		t.Error("no progress was reported")
	}
	trust := map[string]model.Trust{}
	for _, f := range in.Files {
		trust[f.Name] = f.Trust
	}
	if trust["model.onnx"] != model.Pinned || trust["config.json"] != model.FirstDownload {
		t.Errorf("trust %v, want model.onnx pinned and config.json trusted on first download", trust)
	}
	if probs := in.Verify(); len(probs) != 0 {
		t.Fatalf("fresh install does not verify: %v", probs)
	}
	list, err := model.List(models)
	if err != nil || len(list) != 1 || list[0].ID != spec.ID() {
		t.Fatalf("List = %v, %v; want the one model", list, err)
	}

	// A file changed on disk after install is caught by verify.
	if err := os.WriteFile(filepath.Join(in.Dir, "config.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := model.Load(models, spec.ID())
	if err != nil {
		t.Fatal(err)
	}
	if probs := again.Verify(); len(probs) != 1 || probs[0].File != "config.json" {
		t.Fatalf("Verify after tampering = %v, want one problem with config.json", probs)
	}
}

func TestDownloadResumesWithRange(t *testing.T) {
	spec, files := testSpec(t)
	size := len(files["onnx/model_qint8.onnx"])
	cut := size / 3
	h := &hub{t: t, name: spec.Name, rev: spec.Revision, files: files, cutOnce: map[string]int{"onnx/model_qint8.onnx": cut}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	inst := &model.Installer{ModelsDir: t.TempDir(), BaseURL: srv.URL}
	if _, err := inst.Download(context.Background(), spec); err == nil {
		t.Fatal("first download: the connection was dropped, want an error")
	}
	h.served = 0
	in, err := inst.Download(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	want := "bytes=" + strconv.Itoa(cut) + "-"
	found := false
	for _, r := range h.ranges {
		found = found || r == want
	}
	if !found {
		t.Errorf("Range headers %q, want one %q", h.ranges, want)
	}
	total := int64(0)
	for _, b := range files {
		total += int64(len(b))
	}
	if h.served >= total {
		t.Errorf("second run fetched %d bytes, want less than the %d of a full download", h.served, total)
	}
	if probs := in.Verify(); len(probs) != 0 {
		t.Fatalf("resumed install does not verify: %v", probs)
	}
}

func TestDownloadRejectsCorruptedFile(t *testing.T) {
	spec, files := testSpec(t)
	bad := bytes.Clone(files["onnx/tokenizer.json"])
	bad[100] ^= 0xff
	files["onnx/tokenizer.json"] = bad
	srv := httptest.NewServer(&hub{t: t, name: spec.Name, rev: spec.Revision, files: files})
	defer srv.Close()
	models := t.TempDir()
	inst := &model.Installer{ModelsDir: models, BaseURL: srv.URL}
	_, err := inst.Download(context.Background(), spec)
	if !errors.Is(err, model.ErrChecksum) {
		t.Fatalf("got %v, want a checksum error", err)
	}
	dir := model.Dir(models, spec.ID())
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed install", dir)
	}
	if _, err := os.Stat(filepath.Join(dir+".partial", "tokenizer.json.part")); !os.IsNotExist(err) {
		t.Error("the corrupted partial file was kept")
	}
	if _, err := model.Load(models, spec.ID()); err == nil {
		t.Error("Load found a model whose install failed")
	}
}

func TestDownloadReportsHTTPErrors(t *testing.T) {
	spec, files := testSpec(t)
	delete(files, "onnx/config.json")
	srv := httptest.NewServer(&hub{t: t, name: spec.Name, rev: spec.Revision, files: files})
	defer srv.Close()
	_, err := (&model.Installer{ModelsDir: t.TempDir(), BaseURL: srv.URL}).Download(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("got %v, want an error naming the 404", err)
	}
}

func TestInstallFromFolder(t *testing.T) {
	src := testModelDir(t)
	models := t.TempDir()
	inst := &model.Installer{ModelsDir: models, Check: loads(t)}
	in, err := inst.InstallFrom(context.Background(), src, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(in.ID, "intfloat/e5-small-v2@"+model.LocalRevision) {
		t.Errorf("id %s, want intfloat/e5-small-v2@local-…", in.ID)
	}
	if probs := in.Verify(); len(probs) != 0 {
		t.Fatalf("Verify = %v", probs)
	}

	// A folder without a tokenizer is refused before anything is copied.
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "model.onnx"), []byte("not a model"), 0o644)
	if _, err := inst.InstallFrom(context.Background(), empty, "x/y"); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Fatalf("got %v, want an error naming tokenizer.json", err)
	}

	// A folder whose model does not load is refused and leaves nothing installed.
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "model.onnx"), []byte("not a model"), 0o644)
	tok, _ := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	os.WriteFile(filepath.Join(broken, "tokenizer.json"), tok, 0o644)
	os.WriteFile(filepath.Join(broken, "config.json"), []byte(`{"hidden_size": 384, "max_position_embeddings": 512}`), 0o644)
	if _, err := inst.InstallFrom(context.Background(), broken, "acme/broken-e5"); err == nil || !strings.Contains(err.Error(), "does not load") {
		t.Fatalf("got %v, want a load error", err)
	}
	list, _ := model.List(models)
	if len(list) != 1 {
		t.Errorf("%d models installed, want only the good one", len(list))
	}
}
