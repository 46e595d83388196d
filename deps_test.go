package main

import (
	"encoding/json"
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

// layers say which of our packages each package may depend on (itself and its sub-packages are
// always allowed when listed).
var layers = []struct {
	pkg    string
	mayUse []string
}{
	{"session", nil},
	{"paths", nil},
	{"embed", nil},
	// The tray and the installer speak to the daemon through ipc without linking the store.
	{"ipc", []string{"session", "internal"}},
	{"resume", []string{"session", "adapters"}}, // reads transcripts handed to it; never the store
}

// TestDependencyRules keeps the heavy native dependencies in the one place each belongs, so that
// packages which do not need them never link them (ARCHITECTURE.md, "Rules that keep it simple").
func TestDependencyRules(t *testing.T) {
	rules := []struct {
		prefix  string // an imported package path prefix
		allowed []string
	}{
		{"fyne.io/", []string{"app"}},
		{"github.com/lancedb/lancedb-go", []string{"store"}},
		{"github.com/apache/arrow/go/", []string{"store"}},
		{"github.com/mattn/go-sqlite3", []string{"store"}},
		{"github.com/yalue/onnxruntime_go", []string{"embed"}},
	}
	for _, p := range listPackages(t) {
		imports := append(append(append([]string{}, p.Imports...), p.TestImports...), p.XTestImports...)
		for _, imp := range imports {
			for _, r := range rules {
				if !strings.HasPrefix(imp, r.prefix) {
					continue
				}
				ok := false
				for _, dir := range r.allowed {
					ok = ok || under(p.ImportPath, dir)
				}
				if !ok {
					t.Errorf("%s imports %s; only %v may", p.ImportPath, imp, r.allowed)
				}
			}
		}
		// The native library is linked by exactly the two packages that wrap it.
		for _, f := range p.CgoLDFLAGS {
			if strings.Contains(f, "pond_native") && !under(p.ImportPath, "store/lance") && !under(p.ImportPath, "embed/tokenizer") {
				t.Errorf("%s links the native library; only store/lance and embed/tokenizer may", p.ImportPath)
			}
		}
		// The store sees embedding models only through the embed interface: ONNX Runtime and
		// model downloads stay out of it.
		if under(p.ImportPath, "store") {
			for _, d := range p.Deps {
				if under(d, "embed/onnx") || under(d, "embed/model") {
					t.Errorf("%s depends on %s; the store may use only the embed interface", p.ImportPath, d)
				}
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
				ok := under(d, l.pkg)
				for _, dir := range l.mayUse {
					ok = ok || under(d, dir)
				}
				if !ok {
					t.Errorf("%s depends on %s; it may use only %v", p.ImportPath, d, l.mayUse)
				}
			}
		}
	}
}
