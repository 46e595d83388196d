package hermes

import "testing"

// TestToolFailed: a tool row is a failure when it holds the registry's error answer, and only then.
func TestToolFailed(t *testing.T) {
	for content, want := range map[string]bool{
		`{"error": "file not found"}`:               true,
		` {"error": "bad input", "success": false}`: true,
		`{"error": ""}`:                             false,
		`{"error": null, "output": "ok"}`:           false,
		`{"output": "error: none"}`:                 false,
		`error: something printed by the tool`:      false,
		`{"error": {"code": 1}}`:                    false,
		`{"error": "truncated`:                      false,
	} {
		if got := toolFailed(content); got != want {
			t.Errorf("toolFailed(%q) = %v, want %v", content, got, want)
		}
	}
}
