package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const modulePath = "github.com/pondhq/pond"

type listedPackage struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	CgoLDFLAGS   []string
	TestImports  []string
	XTestImports []string
}

func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "sqlite_fts5", "-json", "./...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []listedPackage
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// under reports whether pkg is dir or inside it (dir relative to the module).
func under(pkg, dir string) bool {
	p := modulePath + "/" + dir
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// layers say which of our packages each package may depend on, transitively: what it links,
// not only what it names (itself and its sub-packages are always allowed).
var layers = []struct {
	pkg    string
	mayUse []string
}{
	{"session", nil},
	{"paths", nil},
	{"embed", nil},
	{"assets", nil},
	{"internal", nil},
	// Adapters are pure parsing and encoding: they never see the store.
	{"adapters", []string{"session", "internal"}},
	// The tray and the installer speak to the daemon through ipc without linking the store.
	{"ipc", []string{"session", "internal"}},
	{"resume", []string{"session", "adapters", "internal"}}, // reads transcripts handed to it; never the store
	// The terminal launcher is a pure-Go leaf the tray uses too.
	{"resume/terminal", nil},
	// Presentation is pure text from the read model, for the CLI, MCP and the tray alike.
	{"present", []string{"session"}},
	// The desktop app talks to the daemon only through ipc's client and the wire and read-model
	// types, and uses pure-Go leaves; never the store, the daemon, embed or the native library.
	{"app", []string{"session", "ipc", "paths", "assets", "present", "resume/terminal", "installer/service", "internal"}},
	// The installer knows each agent's config files (adapters) and speaks the wire types.
	{"installer", []string{"adapters", "session", "ipc", "paths", "assets", "internal"}},
}

// heavy are the libraries that must stay out of every package but their owners, checked on what
// a package links (its transitive dependencies), so a pure-Go leaf cannot pull one in by way of
// another package.
var heavy = []struct {
	prefix  string // a package path prefix
	allowed []string
}{
	{"fyne.io/", []string{"app", "."}},
	{"github.com/lancedb/lancedb-go", []string{"store", "daemon", "."}},
	{"github.com/apache/arrow/go/", []string{"store", "daemon", "."}},
	{"github.com/mattn/go-sqlite3", []string{"store", "daemon", "."}},
	{"github.com/yalue/onnxruntime_go", []string{"embed", "daemon", "."}},
	// Secret detection (gitleaks and its many dependencies) is the store's, at capture.
	{"github.com/zricethezav/gitleaks/", []string{"store", "daemon", "."}},
}

// TestDependencyRules keeps the heavy native dependencies in the one place each belongs, so that
// packages which do not need them never link them (ARCHITECTURE.md, "Rules that keep it simple").
func TestDependencyRules(t *testing.T) {
	for _, v := range violations(listPackages(t)) {
		t.Error(v)
	}
}

// TestDependencyRulesCatch feeds the rules packages that break them, so a rule that stopped
// matching (a renamed folder, say) fails here rather than passing in silence.
func TestDependencyRulesCatch(t *testing.T) {
	m := func(p string) string { return modulePath + "/" + p }
	bad := []listedPackage{
		{ImportPath: m("app"), Deps: []string{m("ipc"), m("store"), m("store/lance")}},
		{ImportPath: m("app/search"), Deps: []string{m("present"), "github.com/mattn/go-sqlite3"}},
		{ImportPath: m("app"), Imports: []string{"fyne.io/fyne/v2"}, Deps: []string{m("daemon")}},
		{ImportPath: m("installer"), Deps: []string{m("adapters"), m("store")}},
		{ImportPath: m("adapters/codex"), Deps: []string{m("store/sqlite")}},
		{ImportPath: m("ipc"), Imports: []string{"fyne.io/fyne/v2"}},
		{ImportPath: m("paths"), Deps: []string{"github.com/yalue/onnxruntime_go"}},
		{ImportPath: m("daemon/mcpserver"), Deps: []string{m("store/sqlite")}},
		{ImportPath: m("session/view"), CgoLDFLAGS: []string{"-l:libpond_native.a"}},
	}
	for _, p := range bad {
		if v := violations([]listedPackage{p}); len(v) == 0 {
			t.Errorf("no rule caught %s depending on %v (imports %v)", p.ImportPath, p.Deps, p.Imports)
		}
	}
	ok := []listedPackage{
		{ImportPath: m("app"), Imports: []string{"fyne.io/fyne/v2"}, Deps: []string{"fyne.io/fyne/v2", m("ipc"), m("ipc/apitype"), m("session/view"), m("paths")}},
		{ImportPath: m("installer"), Deps: []string{m("adapters/codex"), m("ipc/apitype")}},
	}
	for _, p := range ok {
		if v := violations([]listedPackage{p}); len(v) != 0 {
			t.Errorf("allowed package refused: %v", v)
		}
	}
}

// allowedIn reports whether pkg is under one of dirs ("." is the root package, main).
func allowedIn(pkg string, dirs []string) bool {
	for _, dir := range dirs {
		if dir == "." && pkg == modulePath || dir != "." && under(pkg, dir) {
			return true
		}
	}
	return false
}

func violations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		// Fyne is imported by app alone: the daemon process never initialises it.
		imports := append(append(append([]string{}, p.Imports...), p.TestImports...), p.XTestImports...)
		for _, imp := range imports {
			if strings.HasPrefix(imp, "fyne.io/") && !under(p.ImportPath, "app") {
				out = append(out, fmt.Sprintf("%s imports %s; only app may", p.ImportPath, imp))
			}
		}
		for _, d := range p.Deps {
			for _, h := range heavy {
				if strings.HasPrefix(d, h.prefix) && !allowedIn(p.ImportPath, h.allowed) {
					out = append(out, fmt.Sprintf("%s links %s; only %v may", p.ImportPath, d, h.allowed))
				}
			}
		}
		// The native library is linked by exactly the two packages that wrap it.
		for _, f := range p.CgoLDFLAGS {
			if strings.Contains(f, "pond_native") && !under(p.ImportPath, "store/lance") && !under(p.ImportPath, "embed/tokenizer") {
				out = append(out, fmt.Sprintf("%s links the native library; only store/lance and embed/tokenizer may", p.ImportPath))
			}
		}
		for _, d := range p.Deps {
			// The store sees embedding models only through the embed interface: ONNX Runtime
			// and model downloads stay out of it.
			if under(p.ImportPath, "store") && (under(d, "embed/onnx") || under(d, "embed/model")) {
				out = append(out, fmt.Sprintf("%s depends on %s; the store may use only the embed interface", p.ImportPath, d))
			}
			// The MCP server reaches the archive only through the daemon's service.
			if under(p.ImportPath, "daemon/mcpserver") && under(d, "store") {
				out = append(out, fmt.Sprintf("%s depends on %s; the MCP server reaches the archive only through the service", p.ImportPath, d))
			}
		}
		// What each package may depend on among our own packages (transitively).
		for _, l := range layers {
			if !under(p.ImportPath, l.pkg) {
				continue
			}
			for _, d := range p.Deps {
				if !strings.HasPrefix(d, modulePath+"/") {
					continue
				}
				if !under(d, l.pkg) && !allowedIn(d, l.mayUse) {
					out = append(out, fmt.Sprintf("%s depends on %s; it may use only %v", p.ImportPath, d, l.mayUse))
				}
			}
		}
	}
	return out
}
