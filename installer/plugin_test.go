package installer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/installer/service"
)

// TestHermesConfigGolden installs Pond's plugin into Hermes from the files in
// testdata/hermes/<case>.txtar: "before" is Hermes's config.yaml (none: no file), then after
// install, a second install (which must change nothing) and uninstall, the outcomes and the
// config. The plugin's folder must be there after an install that did not fail and gone after
// uninstall; a refused config is left byte for byte, and no plugin is written beside it. The
// case crlf runs with CRLF line endings, which must stay; nonewline with no final newline.
func TestHermesConfigGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "hermes", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			sections := readTxtar(t, file)
			o, home := fakeEnv(t)
			root := filepath.Join(home, ".hermes")
			if err := os.MkdirAll(root, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "config.yaml")
			dir := plugins.HermesDir(root)
			crlf := name == "crlf"
			before, hasBefore := sections["before"]
			if hasBefore {
				if crlf {
					before = strings.ReplaceAll(before, "\n", "\r\n")
				}
				if name == "nonewline" {
					before = strings.TrimSuffix(before, "\n")
				}
				if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			readBack := func() string {
				b, err := os.ReadFile(path)
				if err != nil {
					return "(no file)\n"
				}
				if crlf {
					if bytes.Contains(bytes.ReplaceAll(b, []byte("\r\n"), nil), []byte("\n")) {
						t.Errorf("a bare LF in a CRLF file:\n%q", b)
					}
					b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
				}
				return string(b)
			}
			tg := targetOf(t, o, "hermes")
			var outcomes []string
			step := func(label string, install bool) string {
				a := o.setPlugin(tg, install)
				line := label + ": " + a.Outcome
				if a.Detail != "" {
					line += ": " + a.Detail
				}
				if a.Error != "" {
					line += ": " + a.Error
				}
				outcomes = append(outcomes, strings.ReplaceAll(line, home, "$HOME"))
				return a.Outcome
			}
			got := map[string]string{}
			failed := step("install", true) == OutcomeFailed
			got["install"] = readBack()
			if _, err := os.Stat(filepath.Join(dir, "__init__.py")); failed != (err != nil) {
				t.Errorf("install failed %v, but the plugin's __init__.py: %v", failed, err)
			}
			if failed && hasBefore && got["install"] != strings.ReplaceAll(before, "\r\n", "\n") {
				t.Error("a refused config was changed")
			}
			if !failed && hasBefore && got["install"] != strings.ReplaceAll(before, "\r\n", "\n") {
				if bak, err := os.ReadFile(path + ".bak"); err != nil {
					t.Errorf("no backup after an edit: %v", err)
				} else if string(bak) != before {
					t.Errorf("the backup is not the file as it was:\n%s", bak)
				}
				if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
					t.Errorf("mode %v, want the file's own 0640 (%v)", st.Mode().Perm(), err)
				}
			}
			if again := step("reinstall", true); !failed && again != service.OutcomeUnchanged || readBack() != got["install"] {
				t.Errorf("a second install changed something (%s):\n%s", again, readBack())
			}
			step("uninstall", false)
			got["uninstall"] = readBack()
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("uninstall left the plugin's folder: %v", err)
			}
			got["outcomes"] = strings.Join(outcomes, "\n") + "\n"

			if *update {
				sections["install"], sections["uninstall"], sections["outcomes"] = got["install"], got["uninstall"], got["outcomes"]
				writeTxtar(t, file, sections)
				return
			}
			for _, k := range []string{"outcomes", "install", "uninstall"} {
				if diff := cmp.Diff(sections[k], got[k]); diff != "" {
					t.Errorf("%s (-want +got; go test -update rewrites):\n%s", k, diff)
				}
			}
		})
	}
}

// TestHermesEditIsChecked: every edit is parsed back, and one that changed more than the list
// is refused. A YAML anchor shared by two sections (editing one text line would change both)
// is such a case.
func TestHermesEditIsChecked(t *testing.T) {
	src := "defaults: &d\n  enabled:\n  - disk-cleanup\nplugins: *d\n"
	f, err := parseYAMLFile([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := f.setListItem("plugins", "enabled", "pond", true); err == nil {
		t.Fatalf("an aliased section was edited:\n%s", out)
	}
	for _, src := range []string{"plugins:\n  enabled:\n  - a\n  - b:\n      c: d\n", "plugins:\n  enabled:\n  - a\n    b\n"} {
		f, err := parseYAMLFile([]byte(src))
		if err != nil {
			continue // not YAML at all: refused earlier
		}
		if out, err := f.setListItem("plugins", "enabled", "pond", true); err == nil {
			if g, _ := parseYAMLFile(out); g == nil || !g.has("plugins", "enabled", "pond") {
				t.Errorf("%q: an edit that does not hold pond:\n%s", src, out)
			}
		}
	}
}

// TestHermesDoctor: wired only with the files as embedded and pond enabled; stale when the
// files are another pond's, or when the config does not enable them.
func TestHermesDoctor(t *testing.T) {
	o, home := fakeEnv(t)
	root := filepath.Join(home, ".hermes")
	os.MkdirAll(root, 0o700)
	doctor := func() Agent {
		for _, a := range Agents(o.env(), o.Exe) {
			if a.Agent == "hermes" {
				return a
			}
		}
		t.Fatal("doctor does not list hermes")
		return Agent{}
	}
	if a := doctor(); a.Outcome != service.OutcomeAbsent {
		t.Errorf("before install: %+v", a)
	}
	if a := o.setPlugin(targetOf(t, o, "hermes"), true); a.Outcome != service.OutcomeInstalled {
		t.Fatalf("install: %+v", a)
	}
	if a := doctor(); a.Outcome != Wired {
		t.Errorf("after install: %+v", a)
	}
	cfg := filepath.Join(root, "config.yaml")
	os.WriteFile(cfg, []byte("plugins:\n  enabled: []\n"), 0o600)
	if a := doctor(); a.Outcome != Stale || !strings.Contains(a.Detail, "not enabled") {
		t.Errorf("pond not enabled: %+v", a)
	}
	os.WriteFile(cfg, []byte("plugins:\n  enabled: [pond]\n"), 0o600)
	os.WriteFile(filepath.Join(plugins.HermesDir(root), "tools.py"), []byte("# another pond's\n"), 0o644)
	if a := doctor(); a.Outcome != Stale || !strings.Contains(a.Detail, "another pond's") {
		t.Errorf("another pond's files: %+v", a)
	}
	if a := o.setPlugin(targetOf(t, o, "hermes"), true); a.Outcome != service.OutcomeUpdated {
		t.Errorf("install over another pond's plugin: %+v", a)
	}
	if a := doctor(); a.Outcome != Wired {
		t.Errorf("after the update: %+v", a)
	}
}
