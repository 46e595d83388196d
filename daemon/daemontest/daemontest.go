// Package daemontest serves a real daemon.Service over a fresh store on a real Unix socket, for
// tests of the daemon's clients (the desktop app's windows, the tray's follower). It lives under
// daemon because ipc may not link the store; clients' tests import it, their code never does.
package daemontest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store"
)

// Served is a running daemon for one test.
type Served struct {
	Home   string
	Dirs   paths.Dirs
	Client *ipc.Client
	Socket string

	stop func()
}

// Start serves a fresh archive in a temporary HOME; claudeProjects, when not empty, is copied
// to $HOME/.claude/projects (e.g. adapters/claudecode/testdata/projects). It stops at cleanup.
func Start(t testing.TB, claudeProjects string) *Served {
	t.Helper()
	home := t.TempDir()
	if claudeProjects != "" {
		copyTree(t, claudeProjects, filepath.Join(home, ".claude", "projects"))
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	dirs := paths.Dirs{
		ConfigFile: paths.Path{Path: filepath.Join(home, "config.toml")},
		Data:       paths.Path{Path: filepath.Join(home, "data")},
		State:      paths.Path{Path: filepath.Join(home, "state")},
		Cache:      paths.Path{Path: filepath.Join(home, "cache")},
		Runtime:    paths.Path{Path: filepath.Join(home, "run")},
	}
	return StartIn(t, home, dirs)
}

// StartIn serves the archive in dirs (an existing one, e.g. a benchmark's) with HOME home.
func StartIn(t testing.TB, home string, dirs paths.Dirs) *Served {
	t.Helper()
	s := &Served{Home: home, Dirs: dirs, Socket: ipc.APISocket(dirs.Runtime.Path)}
	s.serve(t)
	s.Client = ipc.NewClient(s.Socket)
	t.Cleanup(func() {
		s.Client.Close()
		s.Stop()
	})
	return s
}

func (s *Served) serve(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, store.Options{DataDir: s.Dirs.Data.Path, StateDir: s.Dirs.State.Path, Command: "test"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	hub := ipc.NewHub(64)
	svc := &daemon.Service{Dirs: s.Dirs, Store: st, Env: capture.Env(), Version: "test", Hub: hub}
	ln, err := ipc.Listen(s.Socket, ipc.ListenOptions{})
	if err != nil {
		cancel()
		st.Close()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); (&ipc.Server{API: svc, Hub: hub, Version: "test"}).Serve(ctx, ln) }()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			svc.Close()
			st.Close()
		})
	}
}

// Stop stops the daemon (its socket goes away); Restart starts it again on the same archive.
func (s *Served) Stop() { s.stop() }

// Restart stops the daemon and serves the same archive on the same socket again, as a
// restarted daemon does.
func (s *Served) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	s.serve(t)
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
