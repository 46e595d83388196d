package terminal

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// ErrNotInstalled means an agent's program is on neither PATH.
var ErrNotInstalled = errors.New("not installed")

// LookIn finds an executable name in the folders of path (a PATH value).
func LookIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative entry would find a file of the current folder's
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// Resolver finds agents' programs for a process that may not have the user's PATH: a tray
// started at login gets the session's minimal one, while agents are installed where the user's
// shell profile points (~/.local/bin, a Node version manager's folder…). It asks the user's login
// shell for its PATH once and keeps the answer.
type Resolver struct {
	Getenv func(string) string // os.Getenv when nil
	// Override is the path the user set for an agent's program (the settings), or "".
	Override func(agent string) string
	// Shell asks a login shell for its PATH (LoginPATH when nil; tests set it).
	Shell func(ctx context.Context, shell string) (string, error)

	once  sync.Once
	login string // the login shell's PATH, "" when it could not be had
	err   error
}

func (r *Resolver) getenv(k string) string {
	if r.Getenv != nil {
		return r.Getenv(k)
	}
	return os.Getenv(k)
}

// LoginPATH is the login shell's PATH, asked once.
func (r *Resolver) LoginPATH() (string, error) {
	r.once.Do(func() {
		shell := r.getenv("SHELL")
		if shell == "" || runtime.GOOS == "windows" {
			r.err = errors.New("no login shell ($SHELL is empty)")
			return
		}
		ask := r.Shell
		if ask == nil {
			ask = LoginPATH
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.login, r.err = ask(ctx, shell)
	})
	return r.login, r.err
}

// PATH is the PATH the agents run with: the process's, then the login shell's folders it lacks.
func (r *Resolver) PATH() string {
	own := r.getenv("PATH")
	login, _ := r.LoginPATH()
	seen := map[string]bool{}
	var out []string
	for _, d := range append(filepath.SplitList(own), filepath.SplitList(login)...) {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return strings.Join(out, string(filepath.ListSeparator))
}

// Look finds agent's program bin: the user's override, then this process's PATH, then the login
// shell's. The error wraps ErrNotInstalled and says where it looked.
func (r *Resolver) Look(agent, bin string) (string, error) {
	if r.Override != nil {
		if p := strings.TrimSpace(r.Override(agent)); p != "" {
			if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
				return "", &LookError{Agent: agent, Bin: bin, Override: p}
			}
			return p, nil
		}
	}
	if strings.ContainsRune(bin, '/') {
		return bin, nil
	}
	if p, err := LookIn(bin, r.getenv("PATH")); err == nil {
		return p, nil
	}
	login, lerr := r.LoginPATH()
	if lerr == nil {
		if p, err := LookIn(bin, login); err == nil {
			return p, nil
		}
	}
	return "", &LookError{Agent: agent, Bin: bin, LoginErr: lerr}
}

// Env is environ with PATH replaced by r.PATH(), for the terminal and the agent in it.
func (r *Resolver) Env(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+r.PATH())
}

// LookError says an agent's program was not found, and where Pond looked.
type LookError struct {
	Agent, Bin string
	Override   string // the settings' path, when that is what failed
	LoginErr   error  // why the login shell's PATH could not be had
}

func (e *LookError) Error() string {
	if e.Override != "" {
		return e.Agent + " is set to " + e.Override + " in the settings, which is not an executable file"
	}
	s := e.Agent + " is not installed here: " + e.Bin + " is on neither this app's PATH nor your login shell's"
	if e.LoginErr != nil {
		s = e.Agent + " is not installed here: " + e.Bin + " is not on this app's PATH (your login shell's PATH could not be read: " + e.LoginErr.Error() + ")"
	}
	return s + "; install it, or set its program in Settings"
}

func (e *LookError) Unwrap() error { return ErrNotInstalled }

// pathMark frames the PATH in the shell's output, which a profile may fill with its own lines.
const pathMark = "__POND_PATH__"

// LoginPATH runs shell as a login shell and returns the PATH it sets up.
func LoginPATH(ctx context.Context, shell string) (string, error) {
	cmd := exec.CommandContext(ctx, shell, "-l", "-c", `printf '\n`+pathMark+`%s`+pathMark+`\n' "$PATH"`)
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Dir = os.TempDir()
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	if err := cmd.Run(); err != nil {
		if errors.Is(err, fs.ErrNotExist) || ctx.Err() != nil {
			return "", err
		}
		// A profile's failing last line makes the shell's status non-zero; the PATH may be there.
	}
	s := out.String()
	i := strings.Index(s, pathMark)
	if i < 0 {
		return "", errors.New(shell + " -l printed no PATH")
	}
	rest := s[i+len(pathMark):]
	j := strings.Index(rest, pathMark)
	if j < 0 {
		return "", errors.New(shell + " -l printed no PATH")
	}
	return rest[:j], nil
}
