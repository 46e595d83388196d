package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/embed/tokenizer"
	"github.com/pondhq/pond/installer"
	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// Versions are the versions of Pond and of the parts built into it.
type Versions struct {
	Pond        string `json:"pond"`
	Go          string `json:"go"`
	Platform    string `json:"platform"`
	LancedbGo   string `json:"lancedb_go"`
	Lancedb     string `json:"lancedb"`
	Lance       string `json:"lance"`
	PondNative  string `json:"pond_native"`
	NativeBuild string `json:"native_build,omitempty"`
	Tokenizers  string `json:"tokenizers"`
	ONNXRuntime string `json:"onnxruntime,omitempty"`
	SQLite      string `json:"sqlite,omitempty"`
}

func (v Versions) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pond %s (%s, %s)\n", v.Pond, v.Go, v.Platform)
	fmt.Fprintf(&b, "  lancedb-go %s, lancedb %s, lance %s, pond-native %s\n", v.LancedbGo, v.Lancedb, v.Lance, v.PondNative)
	fmt.Fprintf(&b, "  tokenizers %s\n", v.Tokenizers)
	if v.ONNXRuntime != "" {
		fmt.Fprintf(&b, "  onnxruntime %s\n", v.ONNXRuntime)
	}
	if v.SQLite != "" {
		fmt.Fprintf(&b, "  sqlite %s\n", v.SQLite)
	}
	return b.String()
}

// Check is one part doctor looked at.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // the command that mends it
	// Warn marks a part that works but needs attention (an archive other users can read): it
	// is shown and fixed like a missing part, but doctor still exits 0.
	Warn bool `json:"warn,omitempty"`
}

// Report is what doctor found.
type Report struct {
	OK       bool     `json:"ok"`
	Versions Versions `json:"versions"`
	Checks   []Check  `json:"checks"`
}

func (r Report) text() string {
	var b strings.Builder
	b.WriteString(r.Versions.text())
	b.WriteString("\n")
	for _, c := range r.Checks {
		mark := "ok     "
		switch {
		case !c.OK:
			mark = "MISSING"
		case c.Warn:
			mark = "WARN   "
		}
		fmt.Fprintf(&b, "%s  %-12s %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "         %-12s fix: %s\n", "", c.Fix)
		}
	}
	if r.OK {
		b.WriteString("\nEverything Pond needs is in place.\n")
	} else {
		b.WriteString("\nSome parts are missing; run the commands after \"fix:\".\n")
	}
	return b.String()
}

// lancedbGoVersion is the lancedb-go module this binary was built with, from its build info
// (go.mod is the one place the version is written).
func lancedbGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/lancedb/lancedb-go" {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "unknown"
}

// collectReport inspects every part; with probe it also exercises each one for real (a Lance
// table in a temp dir, ONNX Runtime loaded), as doctor does.
func collectReport(ctx context.Context, probe bool) Report {
	r := Report{OK: true, Versions: Versions{
		Pond:        version,
		Go:          runtime.Version(),
		Platform:    runtime.GOOS + "/" + runtime.GOARCH,
		LancedbGo:   lancedbGoVersion(),
		NativeBuild: nativeDir,
		Tokenizers:  tokenizer.Version,
	}}
	add := func(c Check) {
		r.Checks = append(r.Checks, c)
		r.OK = r.OK && c.OK
	}

	nv, err := lance.NativeVersions()
	if err != nil {
		add(Check{Name: "native", Detail: err.Error(), Fix: "make setup"})
	} else {
		r.Versions.Lancedb, r.Versions.Lance, r.Versions.PondNative = nv["lancedb"], nv["lance"], nv["pond_native"]
		c := Check{Name: "native", OK: true, Detail: fmt.Sprintf("Lance %s through lancedb-go %s and pond-native %s, linked in", nv["lance"], r.Versions.LancedbGo, nv["pond_native"])}
		if nativeDir != "" { // a development build names the cache it linked; a release does not
			c.Detail += " (built from " + nativeDir + ")"
		}
		if probe {
			if err := probeLance(ctx); err != nil {
				c = Check{Name: "native", Detail: "Lance does not work: " + err.Error(), Fix: "make setup (rebuilds the native library), then make build"}
			}
		}
		add(c)
	}

	dirs, err := resolveDirs()
	if err != nil {
		add(Check{Name: "paths", Detail: err.Error(), Fix: "set HOME, or POND_DATA_DIR, POND_STATE_DIR, POND_CACHE_DIR and POND_RUNTIME_DIR"})
	} else {
		configured := ""
		if cfg, _, err := config.Load(dirs.ConfigFile.Path); err == nil {
			configured = cfg.ONNXRuntime.Library
		}
		lib, found := paths.ONNXRuntimeLib(configured, dirs)
		switch {
		case !found:
			add(Check{Name: "onnxruntime", Detail: fmt.Sprintf("ONNX Runtime %s not found (looked for %s)", paths.ONNXRuntimeVersion, lib.Path),
				Fix: "make setup, or export " + paths.EnvONNXRuntimeLib + "=/path/to/libonnxruntime.so.1"})
		case probe:
			v, err := onnx.Init(lib.Path)
			if err != nil {
				add(Check{Name: "onnxruntime", Detail: err.Error(), Fix: "make setup (installs ONNX Runtime " + paths.ONNXRuntimeVersion + "), or point " + paths.EnvONNXRuntimeLib + " at version " + paths.ONNXRuntimeVersion + " or newer"})
			} else {
				r.Versions.ONNXRuntime = v
				add(Check{Name: "onnxruntime", OK: true, Detail: fmt.Sprintf("%s at %s (%s)", v, lib.Path, lib.Source)})
			}
		default:
			add(Check{Name: "onnxruntime", OK: true, Detail: fmt.Sprintf("%s (%s)", lib.Path, lib.Source)})
		}
	}

	add(Check{Name: "tokenizer", OK: true, Detail: "Hugging Face tokenizers " + tokenizer.Version + ", in the native library"})

	sv, fts5, err := sqlite.Probe(ctx)
	switch {
	case err != nil:
		add(Check{Name: "sqlite", Detail: err.Error(), Fix: "make build"})
	case !fts5:
		add(Check{Name: "sqlite", Detail: "SQLite " + sv + " without FTS5", Fix: "make build (builds with -tags sqlite_fts5)"})
	default:
		r.Versions.SQLite = sv
		add(Check{Name: "sqlite", OK: true, Detail: "SQLite " + sv + " with FTS5"})
	}
	return r
}

// privacyCheck looks for files and directories other users could read under Pond's data and
// state directories and its config directory (walked whole), and at the cache directory itself
// (it holds the build's downloads and toolchains, not the archive: only its own mode counts).
func privacyCheck(d paths.Dirs) Check {
	const show = 5
	roots := []string{d.Data.Path, d.State.Path}
	configDir := filepath.Dir(d.ConfigFile.Path)
	if filepath.Base(configDir) == "pond" {
		roots = append(roots, configDir)
	} else {
		roots = append(roots, d.ConfigFile.Path) // a config file of the user's choosing, in a folder of theirs
	}
	var wide []string
	total := 0
	for _, root := range roots {
		w, n, err := paths.FindWide(root, show-len(wide))
		if err != nil {
			return Check{Name: "privacy", OK: true, Warn: true, Detail: "could not check who may read " + root + ": " + err.Error()}
		}
		wide, total = append(wide, w...), total+n
	}
	cacheWide := false
	if st, err := os.Stat(d.Cache.Path); err == nil && st.Mode().Perm()&0o077 != 0 {
		total, cacheWide = total+1, true
		if len(wide) < show {
			wide = append(wide, d.Cache.Path)
		}
	}
	if total == 0 {
		return Check{Name: "privacy", OK: true, Detail: "the archive, state and config are readable by you only"}
	}
	what := "files or folders"
	if total == 1 {
		what = "file or folder"
	}
	detail := fmt.Sprintf("%d %s other users may read: %s", total, what, strings.Join(wide, ", "))
	if total > len(wide) {
		detail += ", …"
	}
	var fix []string
	if total > 1 || !cacheWide { // something under the folders walked
		cmd := "chmod -R go-rwx"
		for _, r := range roots {
			if _, err := os.Lstat(r); err == nil {
				cmd += " " + terminal.Quote(r)
			}
		}
		fix = append(fix, cmd)
	}
	if cacheWide {
		fix = append(fix, "chmod go-rwx "+terminal.Quote(d.Cache.Path))
	}
	return Check{Name: "privacy", OK: true, Warn: true, Detail: detail, Fix: strings.Join(fix, " && ")}
}

// probeLance writes and reads a table in a throwaway directory.
func probeLance(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "pond-doctor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return lance.Probe(ctx, lance.LocalDir(dir))
}

// verifyStore compares the mirror with Lance and adds a check per table.
func verifyStore(ctx context.Context, r *Report) {
	api, closeAPI, err := archive(ctx, "pond doctor --verify", daemon.LocalOptions{Archive: true})
	if err != nil {
		r.Checks = append(r.Checks, Check{Name: "store", Detail: err.Error(), Fix: "check --data-dir / POND_DATA_DIR"})
		r.OK = false
		return
	}
	defer closeAPI()
	v, err := api.VerifyMirror(ctx, &apitype.MirrorVerifyRequest{})
	if err != nil {
		r.Checks = append(r.Checks, Check{Name: "store", Detail: err.Error()})
		r.OK = false
		return
	}
	for _, d := range v.Tables {
		c := Check{Name: "mirror " + d.Table, OK: d.OK(), Detail: fmt.Sprintf("%d rows in Lance, %d in the mirror", d.Lance, d.Mirror)}
		if !d.OK() {
			c.Detail += fmt.Sprintf("; %d+ missing from the mirror, %d+ missing from Lance, %d+ duplicate keys",
				len(d.MissingMirror), len(d.MissingLance), len(d.Duplicates))
			c.Fix = "pond mirror rebuild"
		}
		r.Checks = append(r.Checks, c)
		r.OK = r.OK && c.OK
	}
}

// agentChecks adds one check per agent Pond registers with: its MCP entry wired (runs this
// binary), stale (runs another) or absent. Agents not on this machine, and those that get
// Pond's plugin instead, are left out.
func agentChecks(r *Report) {
	exe, err := service.Executable()
	if err != nil {
		return
	}
	for _, a := range installer.Agents(adapters.CurrentEnv(), exe) {
		c := Check{Name: a.Agent}
		switch a.Outcome {
		case installer.Wired:
			c.OK, c.Detail = true, "MCP wired: pond in "+a.Via
		case installer.Stale:
			c.Detail, c.Fix = "MCP stale: pond in "+a.Via+" "+a.Detail, "pond install"
		case service.OutcomeAbsent:
			// Not registering is the user's choice (--no-mcp, --agents): not a missing part.
			c.OK, c.Detail, c.Fix = true, "MCP absent: no pond entry in "+a.Via, "pond install"
		case installer.OutcomeFailed:
			c.Detail, c.Fix = "MCP config unreadable: "+a.Error, "repair the file, then pond install"
		default:
			continue
		}
		r.Checks = append(r.Checks, c)
		r.OK = r.OK && c.OK
	}
}

func newDoctorCmd() *cobra.Command {
	var format string
	var verify bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check every part Pond needs and say how to fix what is missing",
		Long: `doctor checks the native library (Lance), ONNX Runtime, the tokenizer and SQLite by
using each for real, prints their versions, and for each missing or broken part the exact
command that fixes it; for each agent on this machine, whether Pond's MCP server is wired
(its entry runs this binary), stale (it runs another: pond install updates it) or absent; and
warns about any file or folder of the archive, state or config that other users could read. With --verify it also compares the SQL mirror with the Lance tables
(counts and keys) and reports drift. It exits non-zero when something is missing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r := collectReport(cmd.Context(), true)
			agentChecks(&r)
			if dirs, err := resolveDirs(); err == nil {
				r.Checks = append(r.Checks, privacyCheck(dirs)) // a warning at most: r.OK stays
			}
			if verify {
				verifyStore(cmd.Context(), &r)
			}
			if err := render(cmd.OutOrStdout(), format, r, r.text); err != nil {
				return err
			}
			if !r.OK {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	addFormatFlag(cmd, &format)
	cmd.Flags().BoolVar(&verify, "verify", false, "also compare the SQLite mirror with the Lance tables, key by key")
	return cmd
}
