package cursor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		goos string
		home string
		vars map[string]string
		want []string
	}{
		{"linux", "/home/u", nil, []string{"/home/u/.config/Cursor", "/home/u/.cursor"}},
		{"linux", "/home/u", map[string]string{"XDG_CONFIG_HOME": "/x/cfg"}, []string{"/x/cfg/Cursor", "/home/u/.cursor"}},
		{"freebsd", "/home/u", nil, []string{"/home/u/.config/Cursor", "/home/u/.cursor"}},
		{"darwin", "/Users/u", nil, []string{"/Users/u/Library/Application Support/Cursor", "/Users/u/.cursor"}},
		{"windows", `C:\Users\u`, map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}, []string{`C:\Users\u\AppData\Roaming\Cursor`, `C:\Users\u\.cursor`}},
		{"windows", `C:\Users\u`, nil, []string{`C:\Users\u\AppData\Roaming\Cursor`, `C:\Users\u\.cursor`}},
		{"linux", "", nil, nil},
	} {
		got := New().Roots(adaptertest.FakeEnv(tc.goos, tc.home, tc.vars))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s %v: roots %q, want %q", tc.goos, tc.home, tc.vars, got, tc.want)
		}
	}
}

// TestSuperseded: a chat the IDE holds is read from the IDE's database, not from the
// transcript the IDE (or cursor-agent) wrote of it, also when the two live in different roots
// (~/.config/Cursor and ~/.cursor).
func TestSuperseded(t *testing.T) {
	home := t.TempDir()
	env := testEnv(t)
	env.Home = home
	full := fixture(t)
	ide, cli := filepath.Join(home, ".config", "Cursor"), filepath.Join(home, ".cursor")
	for dst, sub := range map[string]string{ide: "User", cli: "projects"} {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(full, sub), filepath.Join(dst, sub)); err != nil {
			t.Fatal(err)
		}
	}
	if got := New().Roots(env); !slices.Equal(got, []string{ide, cli}) {
		t.Fatalf("roots %q", got)
	}
	srcs, err := New().Scan(context.Background(), env, cli)
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, s := range srcs {
		skipped[s.Hint] = s.Skip
	}
	if skipped[c1] != adapters.SkipSuperseded {
		t.Errorf("the transcript of IDE chat %s: skip %q, want superseded", c1, skipped[c1])
	}
	if s := skipped["7c9e6679-7425-40de-944b-e07fc1f90ae7"]; s != "" {
		t.Errorf("a CLI-only chat is skipped: %q", s)
	}
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), env, cli, nil, &c)
	if _, ok := c.Sessions()[c1]; ok {
		t.Errorf("the superseded transcript was read")
	}
}

// TestDecodeSlug: a projects/ folder name is decoded against the folders that exist, words
// joined by "-", ".", "_" or " " where the folder's name has them, and checked against the
// chat store's md5 of the folder when one is given.
func TestDecodeSlug(t *testing.T) {
	base := t.TempDir()
	want := filepath.Join(base, "my-app.v2", "src dir", "go_pkg")
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "my"), 0o755); err != nil { // a dead end first
		t.Fatal(err)
	}
	slug := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.TrimPrefix(want, "/"))
	if got := decodeSlug(slug, "linux", ""); got != want {
		t.Errorf("decodeSlug(%q) = %q, want %q", slug, got, want)
	}
	if got := decodeSlug(slug, "linux", "00000000000000000000000000000000"); got != "" {
		t.Errorf("with another folder's md5: %q, want none", got)
	}
	if got := decodeSlug("no-such-folder-anywhere", "linux", ""); got != "" {
		t.Errorf("an unknown folder decoded to %q", got)
	}
	c := chat{slug: "no-such-folder-anywhere"}
	if got := c.project("linux"); got != c.slug {
		t.Errorf("an undecodable slug's project is %q, want the slug", got)
	}
}

// TestDatabaseBeingCreated: an empty or cut-short global database (Cursor creating it) is no
// source yet, and no error: the root's other chats are still read.
func TestDatabaseBeingCreated(t *testing.T) {
	root := fixture(t)
	for _, size := range []int64{0, 50} {
		if err := os.Truncate(globalDB(root), size); err != nil {
			t.Fatal(err)
		}
		srcs, err := New().Scan(context.Background(), testEnv(t), root)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		for _, s := range srcs {
			if s.Key == ideKey {
				t.Errorf("%d bytes: the database is listed", size)
			}
		}
		if len(srcs) == 0 {
			t.Errorf("%d bytes: the CLI's chats are not listed", size)
		}
	}
}
