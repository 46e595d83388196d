package claudecode

import (
	"testing"

	"github.com/pondhq/pond/adapters"
)

func TestExcludedSource(t *testing.T) {
	x, err := adapters.NewExclusions([]string{"/home/u/work/client-*", "/srv/secret"}, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"projects/" + claudeProjectDir("/home/u/work/client-x") + "/s1.jsonl", true},
		{"projects/" + claudeProjectDir("/home/u/work/client-x") + "/s1/subagents/agent-a.jsonl", true},
		{"projects/" + claudeProjectDir("/srv/secret") + "/s2.jsonl", true},
		{"projects/" + claudeProjectDir("/srv/secretive") + "/s3.jsonl", false},
		{"projects/" + claudeProjectDir("/home/u/other") + "/s4.jsonl", false},
	} {
		if got := (Adapter{}).ExcludedSource("/root", adapters.Source{Key: tc.key}, x); got != tc.want {
			t.Errorf("ExcludedSource(%s) = %v, want %v", tc.key, got, tc.want)
		}
	}
}
