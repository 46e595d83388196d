package adapters

import "testing"

func TestExclusionsProject(t *testing.T) {
	x, err := NewExclusions([]string{"~/work/client-*", "/srv/secret"}, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		project string
		want    bool
	}{
		{"/home/u/work/client-x", true},
		{"/home/u/work/client-x/api", true},
		{"/home/u/work/clientele", false},
		{"/srv/secret", true},
		{"/srv/secret/deep/er", true},
		{"/srv/secretive", false},
		{"/srv", false},
		{"", false},
	} {
		if got := x.Project(tc.project); got != tc.want {
			t.Errorf("Project(%q) = %v, want %v", tc.project, got, tc.want)
		}
	}
	for _, bad := range []string{"relative/path", "/a/[b"} {
		if _, err := NewExclusions([]string{bad}, "/home/u"); err == nil {
			t.Errorf("NewExclusions(%q) accepted", bad)
		}
	}
	var none *Exclusions
	if none.Project("/x") || !none.Empty() {
		t.Error("a nil Exclusions excludes")
	}
}
