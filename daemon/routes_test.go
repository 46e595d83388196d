package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/embed/model"
	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// TestResumeRoute restores through the socket: a restore answers its outcome, and each refusal
// an error whose code is the outcome's status, with its HTTP status and the outcome (and so the
// CLI's exit code) in the details.
func TestResumeRoute(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	if _, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	const id = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	out := t.TempDir()
	o, err := s.client.Resume(ctx, &apitype.ResumeRequest{Session: id, To: "codex-cli", OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	// Downgraded: the fixture's working directory, /srv/demo, does not exist here.
	if o.Status != "ok" || o.Code != 0 || len(o.Files) != 3 || o.Files[0].Fidelity != "downgraded" || !strings.Contains(o.Command, "codex resume "+o.ID) {
		t.Fatalf("outcome %+v, want ok with three downgraded files (the session and its two sub-agents; its continuation is a session of its own) and the codex command", o)
	}
	for _, f := range o.Files {
		if _, err := os.Stat(f.Path); err != nil || !strings.HasPrefix(f.Path, out+"/sessions/") {
			t.Errorf("%s: %v; want a file under %s/sessions", f.Path, err, out)
		}
	}

	if _, err := os.Stat("/srv/demo"); err == nil {
		t.Fatal("/srv/demo exists on this machine; the cwd_missing case needs it absent")
	}
	root := t.TempDir()
	link := filepath.Join(t.TempDir(), "link") // --out-dir through a link
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		req    apitype.ResumeRequest
		status int
		code   string
		exit   int
	}{
		{"again", apitype.ResumeRequest{Session: id, To: "codex-cli", OutDir: out}, 409, apitype.CodeTargetExists, 3},
		{"not_stored", apitype.ResumeRequest{Session: "nope", To: "codex-cli", OutDir: out}, 404, apitype.CodeNotStored, 1},
		{"unknown_agent", apitype.ResumeRequest{Session: id, To: "windsurf", OutDir: out}, 400, apitype.CodeUnknownAgent, 2},
		// The fixture ran in /srv/demo, which Claude Code needs to resume from.
		{"native_cwd_gone", apitype.ResumeRequest{Session: id, To: "claude-code", OutDir: "native", Root: root}, 422, apitype.CodeCwdMissing, 2},
		{"out_dir_link", apitype.ResumeRequest{Session: id, To: "codex-cli", OutDir: link}, 422, apitype.CodeUnsafePath, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.client.Resume(ctx, &tt.req)
			o, ok := apitype.RefusedRestore(err)
			if !ok {
				t.Fatalf("error %v carries no outcome", err)
			}
			if string(o.Status) != tt.code || o.Code != tt.exit || o.Message == "" {
				t.Errorf("outcome %+v, want %s with exit code %d", o, tt.code, tt.exit)
			}
			body, _ := json.Marshal(&tt.req)
			if status, code, _ := s.raw(t, "POST", "/v1/resume", bytes.NewReader(body)); status != tt.status || code != tt.code {
				t.Errorf("HTTP %d %s, want %d %s", status, code, tt.status, tt.code)
			}
		})
	}
	if got := tree(root); len(got) != 0 {
		t.Errorf("a refused native restore wrote %v", got)
	}
	for _, body := range []string{`{"session":"` + id + `","to":"codex-cli","out_dir":"rel/dir"}`, `{"to":"codex-cli"}`,
		`{"session":"` + id + `","to":"codex-cli","root":"rel"}`} {
		if status, code, _ := s.raw(t, "POST", "/v1/resume", strings.NewReader(body)); status != 400 || code != apitype.CodeValidation {
			t.Errorf("%s: %d %s, want 400 %s", body, status, code, apitype.CodeValidation)
		}
	}
}

// TestModelRoutes switches the served model through the socket: vector search is refused until
// a model is enabled, runs on it right after, is refused again after disable, and remove
// deletes the model's files.
func TestModelRoutes(t *testing.T) {
	src := os.Getenv("POND_TEST_MODEL_DIR")
	if src == "" || os.Getenv("POND_ONNXRUNTIME_LIB") == "" {
		t.Fatal("POND_TEST_MODEL_DIR and POND_ONNXRUNTIME_LIB must be set: run the tests with make test")
	}
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	if _, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	st, err := s.client.Model(ctx)
	if err != nil || st.Enabled || len(st.Installed) != 0 {
		t.Fatalf("fresh model status %+v, %v; want off, nothing installed", st, err)
	}
	var ae *apitype.Error
	if _, err := s.client.SetModel(ctx, &apitype.ModelRequest{Action: "enable", Model: "intfloat/e5-small-v2@local-0"}); !errors.As(err, &ae) || ae.Code != apitype.CodeNotFound {
		t.Errorf("enable a model that is not installed: %v, want not_found", err)
	}
	if _, err := s.client.SetModel(ctx, &apitype.ModelRequest{Action: "upgrade"}); !errors.As(err, &ae) || ae.Code != apitype.CodeValidation {
		t.Errorf("unknown action: %v, want validation_failed", err)
	}

	// What `pond model install --from` does before it enables: the files go into the models
	// folder. The archive is embedded with the same model so that vector search has vectors.
	if err := InitONNX(s.dirs, &config.Config{}); err != nil {
		t.Fatal(err)
	}
	in, err := (&model.Installer{ModelsDir: s.svc.modelsDir(), Check: CheckModel}).InstallFrom(ctx, src, "intfloat/e5-small-v2")
	if err != nil {
		t.Fatal(err)
	}
	e, err := onnx.Open(in.Dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.svc.Store.Backfill(ctx, e, store.BackfillOptions{})
	e.Close()
	if err != nil {
		t.Fatal(err)
	}

	vector := func() (*view.SearchResult, error) {
		return s.client.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "run the calculator tests", Mode: "vector"}})
	}
	refused := func(when string) {
		t.Helper()
		if _, err := vector(); !errors.As(err, &ae) || ae.Code != apitype.CodeValidation || !strings.Contains(ae.Message, "semantic search is off") {
			t.Errorf("vector search %s: %v, want refused as off", when, err)
		}
	}
	refused("before enable")
	st, err = s.client.SetModel(ctx, &apitype.ModelRequest{Action: "enable", Model: in.ID})
	if err != nil || !st.Enabled || st.Model != in.ID || st.ConfigFile != s.dirs.ConfigFile.Path || len(st.Installed) != 1 || st.Embedded == nil || st.Embedded.ThisModel == 0 {
		t.Fatalf("enable: %+v, %v", st, err)
	}
	res, err := vector()
	if err != nil || res.Mode != "vector" || len(res.Sessions) == 0 {
		t.Fatalf("vector search after enable: %+v, %v", res, err)
	}
	if _, err := s.client.SetModel(ctx, &apitype.ModelRequest{Action: "disable"}); err != nil {
		t.Fatal(err)
	}
	refused("after disable")
	// Enable without a model turns the configured one back on.
	if st, err := s.client.SetModel(ctx, &apitype.ModelRequest{Action: "enable"}); err != nil || st.Model != in.ID {
		t.Fatalf("enable the configured model again: %+v, %v", st, err)
	}
	if res, err := vector(); err != nil || res.Mode != "vector" {
		t.Fatalf("vector search after enabling again: %+v, %v", res, err)
	}

	v, err := s.client.VerifyModel(ctx, &apitype.ModelVerifyRequest{})
	if err != nil || !v.OK || v.Model != in.ID {
		t.Fatalf("verify: %+v, %v", v, err)
	}
	st, err = s.client.SetModel(ctx, &apitype.ModelRequest{Action: "disable", Remove: true})
	if err != nil || st.Enabled || st.Model != "" || st.Removed != in.Dir || len(st.Installed) != 0 {
		t.Fatalf("disable --remove: %+v, %v", st, err)
	}
	if _, err := os.Stat(in.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", in.Dir, err)
	}
	refused("after remove")
	if _, err := s.client.VerifyModel(ctx, &apitype.ModelVerifyRequest{}); !errors.As(err, &ae) || ae.Code != apitype.CodeNotFound {
		t.Errorf("verify with semantic search off: %v, want not_found", err)
	}
}

func tree(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil && p != dir {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestMirrorRebuildRoute: the daemon rebuilds its own mirror, and afterwards its writes, SQL
// and searches all use the new file (a file replaced under a running daemon would leave them on
// the old one).
func TestMirrorRebuildRoute(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	if _, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	count := func(table string) int64 {
		t.Helper()
		res, err := s.client.SQL(ctx, &apitype.SQLRequest{Query: "SELECT count(*) AS n FROM " + table})
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("count %s: %+v %v", table, res, err)
		}
		n, ok := res.Rows[0]["n"].(float64)
		if !ok {
			t.Fatalf("count %s: %+v", table, res.Rows[0])
		}
		return int64(n)
	}
	// Search once so that the store's search pool is open on the old file.
	if _, err := s.client.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "calc_test"}}); err != nil {
		t.Fatal(err)
	}
	sessions, messages := count("sessions"), count("messages")
	got, err := s.client.RebuildMirror(ctx, &apitype.MirrorRebuildRequest{})
	if err != nil || got.Sessions != sessions || got.Messages != messages || got.Parts == 0 {
		t.Fatalf("rebuild: %+v %v; want %d sessions, %d messages", got, err, sessions, messages)
	}
	ev := func(v string) json.RawMessage { return json.RawMessage(v) }
	if _, err := s.client.Ingest(ctx, &apitype.IngestRequest{Events: []json.RawMessage{
		ev(`{"kind":"session","id":"after-rebuild","source_agent":"api-test","project":"/p","created_at":"2026-01-02T03:04:05Z"}`),
		ev(`{"kind":"message","session_id":"after-rebuild","id":"m1","role":"user","timestamp":"2026-01-02T03:04:06Z"}`),
		ev(`{"kind":"part","session_id":"after-rebuild","message_id":"m1","id":"p1","ordinal":0,"type":"text","provenance":"conversational","text":"zebracorn written after the rebuild"}`),
	}}); err != nil {
		t.Fatal(err)
	}
	if n := count("sessions"); n != sessions+1 {
		t.Errorf("sessions after a write following the rebuild: %d, want %d", n, sessions+1)
	}
	res, err := s.client.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "zebracorn"}})
	if err != nil || len(res.Sessions) != 1 || res.Sessions[0].SessionID != "after-rebuild" {
		t.Errorf("search after the rebuild: %+v %v", res, err)
	}
}

// TestStreamedRoutes: export and SQL export stream their answer with the summary in a
// trailer, and import reads its JSONL body as it streams.
func TestStreamedRoutes(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	ingestSessions(t, s.client, "s", 2)

	var all bytes.Buffer
	sum, err := s.client.Export(ctx, &apitype.ExportRequest{}, &all)
	if err != nil || sum.Sessions != 2 || strings.Count(all.String(), `"kind":"session"`) != 2 {
		t.Fatalf("export: %+v, %v\n%s", sum, err, all.String())
	}
	// A session that is not stored fails the export (the store writes nothing until it has read
	// every session it was asked for, so the answer is an ordinary error).
	var ae *apitype.Error
	for _, ids := range [][]string{{"nope"}, {"s0", "nope"}} {
		var w bytes.Buffer
		if _, err := s.client.Export(ctx, &apitype.ExportRequest{Sessions: ids}, &w); !errors.As(err, &ae) || ae.Code != apitype.CodeNotFound || w.Len() != 0 {
			t.Errorf("export of %v: %v, wrote %d bytes; want not_found and nothing", ids, err, w.Len())
		}
	}

	// Importing the export again stores nothing new, through the unbounded body.
	imp, err := s.client.Import(ctx, &apitype.ImportRequest{Events: strings.NewReader(all.String())})
	if err != nil || imp.Events == 0 || imp.Inserted != (view.Tally{}) || imp.Matched.Sessions != 2 {
		t.Errorf("import of the export: %+v, %v", imp, err)
	}

	var csv bytes.Buffer
	rep, err := s.client.SQLExport(ctx, &apitype.SQLExportRequest{Query: "SELECT session_id FROM sessions ORDER BY 1", Format: "csv"}, &csv)
	if err != nil || rep.Rows != 2 || rep.Bytes != int64(csv.Len()) || !strings.Contains(csv.String(), "s1") {
		t.Errorf("sql export: %+v, %v\n%s", rep, err, csv.String())
	}
	if _, err := s.client.SQLExport(ctx, &apitype.SQLExportRequest{Query: "DELETE FROM sessions", Format: "csv"}, io.Discard); !errors.As(err, &ae) || ae.Code != apitype.CodeRefused {
		t.Errorf("refused sql export: %v", err)
	}
}
