package adaptertest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
)

// CreateDB builds a SQLite database at path from an SQL script: store/sqlite.CreateFromScript,
// which the tests that copy a fixture with databases pass in (adapters never link a driver).
type CreateDB func(path, script string) error

// RepoRoot is the repository's root folder: the nearest parent of the working directory (a
// test's package folder) holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("adaptertest: no go.mod above the working directory")
		}
		dir = up
	}
}

// Fixture is a's test tree as its Describer declares it.
func Fixture(t testing.TB, a adapters.Adapter) adapters.Fixture {
	t.Helper()
	d, ok := a.(adapters.Describer)
	if !ok {
		t.Fatalf("%s does not implement adapters.Describer", a.Name())
	}
	f := d.Describe().Fixture
	if f.Dir == "" {
		t.Fatalf("%s declares no fixture", a.Name())
	}
	return f
}

// FixtureDir is the absolute folder of a's test tree.
func FixtureDir(t testing.TB, a adapters.Adapter) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), filepath.FromSlash(Fixture(t, a).Dir))
}

// CopyFixture copies a's test tree to root (created if missing) and builds the databases it
// holds as SQL scripts with create, leaving what the agent would have on disk.
func CopyFixture(t testing.TB, a adapters.Adapter, root string, create CreateDB) {
	t.Helper()
	if err := copyFixture(RepoRoot(t), a, root, create); err != nil {
		t.Fatal(err)
	}
}

func copyFixture(repo string, a adapters.Adapter, root string, create CreateDB) error {
	d, ok := a.(adapters.Describer)
	if !ok || d.Describe().Fixture.Dir == "" {
		return fmt.Errorf("%s declares no fixture", a.Name())
	}
	f := d.Describe().Fixture
	src := filepath.Join(repo, filepath.FromSlash(f.Dir))
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		return fmt.Errorf("copy %s's fixture: %w", a.Name(), err)
	}
	for db, script := range f.Databases {
		if create == nil {
			return fmt.Errorf("%s's fixture holds databases: pass a CreateDB (store/sqlite.CreateFromScript)", a.Name())
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(script)))
		if err != nil {
			return err
		}
		if err := create(filepath.Join(root, filepath.FromSlash(db)), string(b)); err != nil {
			return fmt.Errorf("%s: build %s: %w", a.Name(), db, err)
		}
	}
	return nil
}

// FixtureHome puts each adapter's test tree where its discovery finds it in env (its first
// root under env.Home), and returns those roots by adapter name.
func FixtureHome(t testing.TB, env adapters.Env, as []adapters.Adapter, create CreateDB) map[string]string {
	t.Helper()
	roots, err := PlaceFixtures(RepoRoot(t), env, as, create)
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

// PlaceFixtures is FixtureHome outside a test (pond-benchgen -fixtures): repo is the repository's
// root folder, where the fixtures are read from.
func PlaceFixtures(repo string, env adapters.Env, as []adapters.Adapter, create CreateDB) (map[string]string, error) {
	roots := map[string]string{}
	for _, a := range as {
		rs := a.Roots(env)
		if len(rs) == 0 {
			return nil, fmt.Errorf("%s has no root in the fixture home", a.Name())
		}
		if err := copyFixture(repo, a, rs[0], create); err != nil {
			return nil, err
		}
		roots[a.Name()] = rs[0]
	}
	return roots, nil
}
