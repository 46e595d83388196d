package resume_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pondhq/pond/resume"
)

// clineResume: `cline --data-dir ROOT --id ID` (the outcome's command, the restore's root as
// Cline's data dir), in a pseudo-terminal, with Anthropic's API at the fake. Cline CLI 3.0.65
// resumes a session only in its terminal interface: given --id it drops any prompt and opens
// the interface, which it starts only on a terminal (with --acp, the editor protocol, it loads a
// session but sends no prompt of it). So the run types the prompt as a user would, once the
// interface asks for input, waits until Cline's own log says the turn is over, then quits with
// Ctrl+C twice. Cline opens an id it does not find as a new, empty session under that id, so a
// run whose request holds no turn of a history is a failure to resume.
func clineResume(bin string) func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
	return func(t *testing.T, fake *fakeModel, o *resume.Outcome, f resume.File) (seen, string, error) {
		home, cwd := t.TempDir(), t.TempDir()
		// The provider Cline uses is the one it used last, from its data dir's settings: the
		// fake, with any key and the model named (as Cline itself saves a provider it was given).
		settings := fmt.Sprintf(`{"version":1,"lastUsedProvider":"anthropic","modes":{},"providers":{"anthropic":{"settings":`+
			`{"provider":"anthropic","apiKey":"pond-fake-key","model":"claude-sonnet-4-5","baseUrl":%q},`+
			`"updatedAt":"2026-12-03T00:00:00.000Z","tokenSource":"manual"}}}`, fake.URL)
		if err := os.MkdirAll(filepath.Join(o.Root, "settings"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.Root, "settings", "providers.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := agentCmd(cwd, []string{"HOME=" + home, "TERM=xterm-256color"}, bin, "--data-dir", o.Root, "--id", f.ID)
		out, err := runInTerminal(cmd, filepath.Join(o.Root, "logs", "cline.log"))
		got := seenIn(t, conversation(fake.requests()))
		if b, rerr := os.ReadFile(f.Path); rerr == nil {
			got.Texts = clineWrapped(got.Texts, b)
		}
		if err == nil && len(got.Texts) == 0 {
			// An id it does not find is a new session; a history its model client refuses is a
			// failed run (the output's events say which).
			err = fmt.Errorf("cline sent the model no turn of restored session %s", f.ID)
		}
		return got, out, err
	}
}

// clineWrapped puts back the mode tag Cline takes off a user's text when it sends it: its own
// records hold what the user typed as <user_input mode="act">…</user_input> (the genuine
// session's first message), the model gets the text inside. A text is put back in its tag only
// when the restored document holds it so.
func clineWrapped(texts []string, doc []byte) []string {
	out := slices.Clone(texts)
	for i, s := range out {
		for _, mode := range []string{"act", "plan", "yolo"} {
			w := `<user_input mode="` + mode + `">` + s + `</user_input>`
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if enc.Encode(w) == nil && bytes.Contains(doc, bytes.Trim(bytes.TrimSpace(b.Bytes()), `"`)) {
				out[i] = w
				break
			}
		}
	}
	return out
}

// clineEvents are what Cline's log (LOGS/cline.log, JSON lines) records of a run: the prompt
// taken in, and the run's end, answered (agent.run-finished) or failed (agent.run-failed, say
// on a history its model client refuses; task.error).
var (
	clineInputSent = []byte(`"event":"session.input_sent"`)
	clineTurnOver  = regexp.MustCompile(`"event":"(agent\.run-(?:finished|failed)|task\.error)"`)
)

// runInTerminal runs Cline's terminal interface on a pseudo-terminal: it answers the
// interface's cursor-position queries as a terminal does, types verifyPrompt and Enter once the
// input box is drawn and the screen has settled (the history loads after the box is drawn, and
// keys typed meanwhile can be lost), presses Enter again if log shows the prompt was not taken
// in, and quits once log records the turn's end. It returns what the interface drew, its escape
// sequences removed, and the events of log. An exit after the turn's end is not a failure to
// resume: Cline's Bun runtime at times crashes while it shuts down, and the output says so.
func runInTerminal(cmd *exec.Cmd, log string) (string, error) {
	master, slave, err := openTerminal(100, 30)
	if err != nil {
		return "", err
	}
	defer master.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = controllingTerminal()
	if err := cmd.Start(); err != nil {
		slave.Close()
		return "", err
	}
	slave.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	last := time.Now()
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 64<<10)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				mu.Lock()
				screen.Write(buf[:n])
				last = time.Now()
				mu.Unlock()
				// The interface asks where the cursor is at start-up and waits for the answer.
				for range bytes.Count(buf[:n], []byte("\x1b[6n")) {
					_, _ = master.Write([]byte("\x1b[1;1R"))
				}
			}
			if err != nil {
				return // EIO once the child is gone
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	drawn := func() (string, time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		return screen.String(), time.Since(last)
	}
	logged := func() []byte { b, _ := os.ReadFile(log); return b }
	after := func(n int) []byte {
		if b := logged(); len(b) >= n {
			return b[n:]
		}
		return nil
	}
	const limit = 3 * time.Minute
	deadline := time.After(limit)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var typedAt time.Time
	base := 0 // the log's length when the prompt was typed: what follows is this turn's
	typed, retried, quit := false, false, false
	var runErr error
wait:
	for {
		select {
		case runErr = <-done:
			break wait
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			runErr = fmt.Errorf("timed out after %s", limit)
			break wait
		case <-tick.C:
		}
		out, quiet := drawn()
		switch {
		case !typed && strings.Contains(out, "Ask anything") && quiet > time.Second:
			// Typed keys, not a paste: the text, then Enter on its own.
			typed, typedAt, base = true, time.Now(), len(logged())
			_, _ = master.Write([]byte(verifyPrompt))
			time.Sleep(300 * time.Millisecond)
			_, _ = master.Write([]byte("\r"))
		case typed && !retried && time.Since(typedAt) > 20*time.Second && !bytes.Contains(after(base), clineInputSent):
			retried = true
			_, _ = master.Write([]byte("\r"))
		case typed && !quit && clineTurnOver.Match(after(base)):
			// The first Ctrl+C clears the input, the second quits (and prints the summary).
			quit = true
			time.Sleep(time.Second) // the reply drawn
			_, _ = master.Write([]byte{3})
			time.Sleep(500 * time.Millisecond)
			_, _ = master.Write([]byte{3})
		}
	}
	master.Close()
	<-read
	out, _ := drawn()
	text := plainText(out)
	if events := clineEventNames.FindAllSubmatch(logged(), -1); len(events) > 0 {
		var names []string
		for _, e := range events {
			names = append(names, string(e[1]))
		}
		text += "\ncline.log events: " + strings.Join(names, " ")
	}
	switch {
	case quit && runErr != nil:
		text += fmt.Sprintf("\n(cline exited with %v after the turn)", runErr)
		runErr = nil
	case runErr == nil && !quit:
		runErr = errors.New("cline quit before the turn was over")
	}
	return text, runErr
}

var clineEventNames = regexp.MustCompile(`"event":"([a-z_.-]+)"`)

// terminalEscapes are the control sequences a terminal interface draws with: CSI, OSC and DCS.
var terminalEscapes = regexp.MustCompile(`\x1b\[[0-9;?<>=$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1bP[^\x1b]*\x1b\\|\x1b[=>78]`)

// plainText is what a terminal interface drew, without its escape sequences, its last 4 KB.
func plainText(drawn string) string {
	s := terminalEscapes.ReplaceAllString(drawn, "")
	if len(s) > 4096 {
		s = "…" + s[len(s)-4096:]
	}
	return s
}
