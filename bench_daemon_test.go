package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
)

// fixtureHome is a home holding every built adapter's fixtures at its agent's usual place, so
// the daemon watches five roots.
func fixtureHome(b *testing.B) (home string, env []string) {
	home = b.TempDir()
	for src, dst := range map[string]string{
		"adapters/claudecode/testdata/projects": ".claude/projects",
		"adapters/codex/testdata/codex":         ".codex",
		"adapters/gemini/testdata/home/.gemini": ".gemini",
		"adapters/opencode/testdata/storage":    ".local/share/opencode/storage",
		"adapters/pi/testdata/agent":            ".pi/agent",
	} {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			to := filepath.Join(home, dst, rel)
			if d.IsDir() {
				return os.MkdirAll(to, 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"), "POND_ONNXRUNTIME_LIB=" + os.Getenv("POND_ONNXRUNTIME_LIB")}
	return home, env
}

func pondCmd(bin string, env []string, args ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env = env
	return c
}

// procCPU is the process's user+system CPU time, from /proc.
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func procRSS(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkDaemonIdle starts the real daemon on the five adapters' fixtures, waits for the
// start-up sync, then measures its CPU over POND_IDLE_SECONDS (default 60) and its resident
// memory, with embeddings off and with the int8 test model installed. The daemon loads a model
// on its first use and unloads it after embed.DefaultIdle, so the model case installs it through
// the running daemon (which loads it to try it) and reports the resident size right after as
// rss-loaded-MB. It takes minutes, so it runs only when asked:
// POND_BENCH_IDLE=1 make bench PKGS=. BENCH=DaemonIdle
func BenchmarkDaemonIdle(b *testing.B) {
	if os.Getenv("POND_BENCH_IDLE") == "" {
		b.Skip("set POND_BENCH_IDLE=1 to measure the idle daemon (minutes)")
	}
	window := 60 * time.Second
	if s, err := strconv.Atoi(os.Getenv("POND_IDLE_SECONDS")); err == nil && s > 0 {
		window = time.Duration(s) * time.Second
	}
	bin := pondBinary(b)
	for _, withModel := range []bool{false, true} {
		b.Run(map[bool]string{false: "embeddings_off", true: "int8_model"}[withModel], func(b *testing.B) {
			home, env := fixtureHome(b)
			if out, err := pondCmd(bin, env, "consent", "grant").CombinedOutput(); err != nil {
				b.Fatalf("consent grant: %v %s", err, out)
			}
			d := startDaemon(b, bin, env, home)
			var loadedRSS float64
			ctx := context.Background()
			deadline := time.Now().Add(60 * time.Second)
			var st *view.Status
			for {
				var err error
				st, err = d.client.Status(ctx)
				if err == nil && st.LastSync != nil && !st.Daemon.Syncing && st.Daemon.Watching > 0 {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("no start-up sync: %+v %v\n%s", st, err, d.log.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			if withModel {
				dir := os.Getenv("POND_TEST_MODEL_DIR")
				if dir == "" {
					b.Skip("POND_TEST_MODEL_DIR is not set (make bench sets it)")
				}
				if out, err := pondCmd(bin, env, "model", "install", "--from", dir).CombinedOutput(); err != nil {
					b.Fatalf("model install: %v %s", err, out)
				}
				loadedRSS = procRSS(b, d.cmd.Process.Pid)
			}
			time.Sleep(2 * time.Second) // let the start-up settle
			for b.Loop() {
				pid := d.cmd.Process.Pid
				c0 := procCPU(b, pid)
				time.Sleep(window)
				used := procCPU(b, pid) - c0
				b.ReportMetric(100*used.Seconds()/window.Seconds(), "idle-cpu-%")
				b.ReportMetric(procRSS(b, pid), "rss-MB")
			}
			if withModel {
				b.ReportMetric(loadedRSS, "rss-loaded-MB")
			}
			b.ReportMetric(float64(st.Sessions), "sessions")
			b.ReportMetric(float64(st.Daemon.Watching), "watched-dirs")
			b.ReportMetric(0, "ns/op")
		})
	}
}
