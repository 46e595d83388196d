package resume_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pondhq/pond/resume"
)

// kiloBatch checks restores into Kilo CLI all at once. Each start-up of the kilo binary costs
// about 5 s of CPU, and one `kilo import` plus one `kilo run` per restore made the pass take
// 35 min on a busy 2-core machine: here every document is still imported by `kilo import` (the
// command Pond prints), two at a time, into one data folder, and the sessions are then resumed
// by one `kilo serve`, each by the request `kilo run --session` makes of the server it starts
// (POST /session/{id}/message, which runs the prompt loop and answers when it ends). A restore
// holding a session id already imported gets a data folder of its own, since `kilo import`
// keeps the rows a session already has and the earlier run's turn would be in its history.
type kiloBatch struct {
	bin, dir string
	restores []*kiloRestore
}

type kiloRestore struct {
	native bool
	docs   []string          // the restore's documents, copied into the batch
	ids    []string          // the session id each document holds
	keys   map[string]string // key → session id of each file the check reads back
	home   string            // the data folder it is imported into
	out    strings.Builder   // what `kilo import` said
	err    error             // its first failure
}

// add copies one restore's documents into the batch and returns the key of each file.
func (b *kiloBatch) add(t *testing.T, o *resume.Outcome, _ func(session string) string) map[string]string {
	t.Helper()
	if b.dir == "" {
		dir, err := os.MkdirTemp("", "pond-kilo-verify-")
		if err != nil {
			t.Fatal(err)
		}
		b.dir = dir
	}
	r := &kiloRestore{native: o.Native, keys: map[string]string{}}
	keys := map[string]string{}
	for i, f := range o.Files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		doc := filepath.Join(b.dir, fmt.Sprintf("%d-%d.json", len(b.restores), i))
		if err := os.WriteFile(doc, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r.docs, r.ids = append(r.docs, doc), append(r.ids, f.ID)
		key := fmt.Sprintf("%d:%s", len(b.restores), f.ID)
		r.keys[key], keys[f.Path] = f.ID, key
	}
	b.restores = append(b.restores, r)
	return keys
}

// kiloEnv is the environment of every kilo process of the batch: a private home and data
// folder, Anthropic's API at the fake, nothing fetched, no telemetry (whose shutdown waits
// 2 s for PostHog in every process) and no daemon.
func kiloEnv(home, fakeURL string) []string {
	config := fmt.Sprintf(`{"provider":{"anthropic":{"options":{"baseURL":%q,"apiKey":"pond-fake-key"}}},"autoupdate":false,"share":"disabled"}`, fakeURL+"/v1")
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + home + "/data", "XDG_CONFIG_HOME=" + home + "/config",
		"XDG_CACHE_HOME=" + home + "/cache", "XDG_STATE_HOME=" + home + "/state", "KILO_CONFIG_CONTENT=" + config,
		"KILO_TELEMETRY_LEVEL=off"}
	for _, v := range []string{"DISABLE_MODELS_FETCH", "DISABLE_AUTOUPDATE", "DISABLE_DEFAULT_PLUGINS", "DISABLE_LSP_DOWNLOAD",
		"DISABLE_SHARE", "DISABLE_CLAUDE_CODE", "PURE", "NO_DAEMON"} {
		env = append(env, "KILO_"+v+"=1")
	}
	return env
}

// kiloControl is a session id no restore holds.
const kiloControl = "ses_0000000000000Pondcontrol0"

// finish imports every document, resumes every root session and returns what Kilo sent the
// model for each, by key.
func (b *kiloBatch) finish(t *testing.T) map[string]seen {
	defer os.RemoveAll(b.dir)
	fake := newFakeModel(t)
	cwd := t.TempDir()
	shared := t.TempDir()
	imported := map[string]bool{}
	homes := []string{shared}
	for _, r := range b.restores {
		r.home = shared
		for _, id := range r.ids {
			if imported[id] {
				r.home = t.TempDir()
				homes = append(homes, r.home)
				break
			}
		}
		if r.home == shared {
			for _, id := range r.ids {
				imported[id] = true
			}
		}
	}
	start := time.Now()
	importRestore := func(r *kiloRestore) {
		for _, doc := range r.docs {
			// A start-up takes half a minute on a machine loaded 15 deep.
			out, err := runAgentFor(agentCmd(cwd, kiloEnv(r.home, fake.URL), b.bin, "import", doc), 5*time.Minute)
			r.out.WriteString(out)
			if err != nil {
				r.err = fmt.Errorf("kilo import %s: %w", doc, err)
				return
			}
		}
	}
	// A new data folder's first start-up creates the database: one restore alone in each, then
	// the rest two at a time (SQLite takes the writers in turn), each restore's documents in
	// order on one goroutine.
	var jobs []*kiloRestore
	first := map[string]bool{}
	docs := 0
	for _, r := range b.restores {
		docs += len(r.docs)
		if !first[r.home] {
			first[r.home] = true
			importRestore(r)
			continue
		}
		jobs = append(jobs, r)
	}
	work := make(chan *kiloRestore)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				importRestore(r)
			}
		}()
	}
	for _, r := range jobs {
		work <- r
	}
	close(work)
	wg.Wait()
	imports := time.Since(start)
	got := map[string]seen{}
	prompts := 0
	for _, home := range homes {
		srv := startKiloServer(t, b.bin, cwd, kiloEnv(home, fake.URL))
		if home == shared {
			s, status, err := srv.prompt(fake, kiloControl)
			if err == nil && status == http.StatusOK || len(s.Texts) > 0 {
				t.Errorf("kilo resumes %s, which was never imported: HTTP %d, %v, it sent %d texts", kiloControl, status, err, len(s.Texts))
			}
		}
		for _, r := range b.restores {
			if r.home != home {
				continue
			}
			if r.err != nil {
				if why := rejectsOriginal("kilo", r.out.String()); r.native && why != "" {
					// The document is the original, row for row (TestNativeRoundTrip).
					for key := range r.keys {
						got[key] = seen{Rejects: "kilo import: " + why}
					}
					continue
				}
				t.Errorf("%v\n%s", r.err, r.out.String())
				continue
			}
			for key, id := range r.keys {
				s, status, err := srv.prompt(fake, id)
				prompts++
				if err != nil || status != http.StatusOK {
					t.Errorf("kilo could not resume %s: HTTP %d, %v", id, status, err)
				}
				got[key] = s
			}
		}
		srv.stop()
	}
	t.Logf("kilo: %d documents of %d restores imported in %s (%d data folders), %d sessions resumed by kilo serve in %s",
		docs, len(b.restores), imports.Round(time.Second), len(homes), prompts, (time.Since(start) - imports).Round(time.Second))
	return got
}

// kiloServer is a running `kilo serve`.
type kiloServer struct {
	t   *testing.T
	cmd *exec.Cmd
	url string
	out *bytes.Buffer
}

// startKiloServer starts `kilo serve` on a free loopback port and waits for it to listen.
func startKiloServer(t *testing.T, bin, cwd string, env []string) *kiloServer {
	t.Helper()
	cmd := agentCmd(cwd, env, bin, "serve", "--hostname", "127.0.0.1", "--port", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if _, url, ok := strings.Cut(line, "listening on "); ok {
				found <- strings.TrimSpace(url)
			}
		}
		close(found)
	}()
	s := &kiloServer{t: t, cmd: cmd, out: &log}
	select {
	case url, ok := <-found:
		if !ok {
			s.stop()
			t.Fatalf("kilo serve ended without listening:\n%s", log.String())
		}
		s.url = url
	case <-time.After(3 * time.Minute):
		s.stop()
		t.Fatalf("kilo serve did not listen within 3 minutes:\n%s", log.String())
	}
	return s
}

// prompt adds the verify prompt to a session, as `kilo run -m anthropic/claude-sonnet-4-5
// --session ID PROMPT` does through its server, and returns what Kilo sent the model.
func (s *kiloServer) prompt(fake *fakeModel, id string) (seen, int, error) {
	body, _ := json.Marshal(map[string]any{
		"model": map[string]string{"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
		"parts": []map[string]string{{"type": "text", "text": verifyPrompt}},
	})
	c := http.Client{Timeout: 5 * time.Minute}
	resp, err := c.Post(s.url+"/session/"+id+"/message", "application/json", bytes.NewReader(body))
	status := 0
	if err == nil {
		status = resp.StatusCode
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return seenIn(s.t, conversation(fake.requests())), status, err
}

func (s *kiloServer) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}
