package installer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
)

// FuzzConfigEdit feeds the editors arbitrary files: they never panic, and an edit they accept
// holds Pond's entry and nothing else new (set checks it by parsing the result).
func FuzzConfigEdit(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "mcp", "*.txtar"))
	for _, file := range files {
		b, _ := os.ReadFile(file)
		if _, before, ok := strings.Cut(string(b), "-- before --\n"); ok {
			before, _, _ = strings.Cut(before, "-- ")
			f.Add(before, uint8(0))
			f.Add(before, uint8(1))
			f.Add(before, uint8(2))
			f.Add(before, uint8(3))
		}
	}
	f.Add(`{"a":[1,{"b":"}"}],"mcpServers":{"x":1,}}`, uint8(1))
	f.Fuzz(func(t *testing.T, src string, which uint8) {
		format := []adapters.ConfigFormat{adapters.JSON, adapters.JSONC, adapters.TOML, adapters.YAML}[which%4]
		servers := map[adapters.ConfigFormat]string{adapters.TOML: "mcp_servers", adapters.YAML: "extensions"}[format]
		if servers == "" {
			servers = "mcpServers"
		}
		cfg, err := parseConfig([]byte(src), format)
		if err != nil {
			return
		}
		entry := map[string]any{"command": "/p", "args": []string{"mcp"}}
		out, err := cfg.set(servers, ServerName, entry)
		if err != nil {
			return
		}
		again, err := parseConfig(out, format)
		if err != nil {
			t.Fatalf("an accepted edit does not parse: %v\n%s", err, out)
		}
		if _, ok := again.entry(servers, ServerName); !ok {
			t.Fatalf("an accepted edit lacks the entry:\n%s", out)
		}
		if _, err := again.set(servers, ServerName, nil); err != nil && !strings.Contains(err.Error(), "beyond what pond edits") {
			t.Fatalf("removing what was just added: %v\n%s", err, out)
		}
	})
}
