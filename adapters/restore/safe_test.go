package restore

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckRel(t *testing.T) {
	for _, tc := range []struct {
		rel string
		ok  bool
	}{
		{"projects/-srv-demo/7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b.jsonl", true},
		{"projects/-srv-demo/7f3c/subagents/workflows/wf_0001/agent-w0c1.jsonl", true},
		{"projects/../../.bash_profile", false},
		{"projects/a/../../../x", false},
		{"/etc/passwd", false},
		{"projects//x.jsonl", false},
		{"projects/./x.jsonl", false},
		{"projects/x y.jsonl", false},
		{`projects\..\..\x`, false},
		{"", false},
	} {
		err := CheckRel("s1", "options.source.path", tc.rel)
		var unsafe *UnsafeError
		if ok := err == nil; ok != tc.ok || (!ok && !errors.As(err, &unsafe)) {
			t.Errorf("CheckRel(%q) = %v, want ok %v", tc.rel, err, tc.ok)
		}
	}
	for _, name := range []string{"..", ".", "", "a/b", "x;y", strings.Repeat("a", 256)} {
		if CheckName("s1", "f", name) == nil {
			t.Errorf("CheckName(%q) accepted it", name)
		}
	}
}
