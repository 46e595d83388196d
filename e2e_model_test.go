package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// TestEndToEndSemanticSetup drives the real binary through turning semantic search on: it is off
// until a model is installed (here from the registry-packaged test model's folder), optimize
// --embed then embeds every searchable message, verify catches a damaged file, and disable
// turns it off again.
func TestEndToEndSemanticSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	modelDir := os.Getenv("POND_TEST_MODEL_DIR")
	if modelDir == "" {
		t.Fatal("POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	bin := pondBinary(t)
	_, env := isolatedHome(t)
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	status := func() view.ModelStatus {
		t.Helper()
		out, code := run(t, bin, env, "model", "status", "--format", "json")
		if code != 0 {
			t.Fatalf("model status exited %d: %s", code, out)
		}
		var st view.ModelStatus
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("model status: %v\n%s", err, out)
		}
		return st
	}
	if st := status(); st.Enabled || len(st.Installed) != 0 {
		t.Fatalf("fresh status %+v, want off and nothing installed", st)
	}
	if _, code := run(t, bin, env, "optimize", "--embed"); code != 1 {
		t.Fatalf("optimize --embed before install exited %d, want 1", code)
	}

	out, code := run(t, bin, env, "model", "install", "--from", modelDir, "--format", "json")
	if code != 0 {
		t.Fatalf("model install exited %d: %s", code, out)
	}
	st := status()
	if !st.Enabled || !strings.HasPrefix(st.Model, "intfloat/e5-small-v2@local-") || st.Embedded == nil {
		t.Fatalf("status after install %+v, want on with the installed model", st)
	}
	if st.Embedded.Searchable == 0 || st.Embedded.ThisModel != 0 {
		t.Fatalf("embedded %+v before optimize, want searchable messages and none embedded", *st.Embedded)
	}

	// With no flags, optimize says what needs doing and the command that does it.
	out, code = run(t, bin, env, "optimize")
	if want := fmt.Sprintf("pond optimize --embed                        %[1]d of %[1]d searchable messages without a vector", st.Embedded.Searchable); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("pond optimize exited %d:\n%s\nwant a line %q", code, out, want)
	}

	out, code = run(t, bin, env, "optimize", "--embed", "--batch", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("optimize --embed exited %d: %s", code, out)
	}
	var rep apitype.OptimizeResponse
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("optimize: %v\n%s", err, out)
	}
	if rep.Report == nil || rep.Report.Embed == nil || int64(rep.Report.Embed.Embedded) != st.Embedded.Searchable || rep.Report.Embed.Remaining != 0 ||
		rep.Report.After.Embeddings.Pending != 0 {
		t.Fatalf("optimize report %+v, want %d embedded and none pending", rep.Report, st.Embedded.Searchable)
	}
	if after := status(); after.Embedded.ThisModel != st.Embedded.Searchable {
		t.Fatalf("embedded after optimize %+v, want all %d", *after.Embedded, st.Embedded.Searchable)
	}

	if out, code := run(t, bin, env, "model", "verify"); code != 0 {
		t.Fatalf("verify of a fresh install exited %d: %s", code, out)
	}
	tok := filepath.Join(st.Installed[0].Dir, "tokenizer.json")
	if err := os.WriteFile(tok, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = run(t, bin, env, "model", "verify", "--format", "json")
	if code != 1 || !strings.Contains(out, "tokenizer.json") {
		t.Fatalf("verify of a damaged install exited %d: %s; want 1 naming tokenizer.json", code, out)
	}

	if out, code := run(t, bin, env, "model", "disable"); code != 0 {
		t.Fatalf("disable exited %d: %s", code, out)
	}
	if st := status(); st.Enabled {
		t.Fatalf("status after disable %+v, want off", st)
	}
}
