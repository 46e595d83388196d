package all

import (
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/corpus"
	"github.com/pondhq/pond/adapters/restore"
)

// TestEveryAdapterIsWhole: every registered adapter has a unique name and carries everything
// the rest of Pond derives from this list: a description (help text, fixture), a benchmark
// corpus generator, and a restore encoder exactly when it declares that it restores.
func TestEveryAdapterIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Adapters() {
		t.Run(a.Name(), func(t *testing.T) {
			if seen[a.Name()] {
				t.Fatalf("two adapters are named %s", a.Name())
			}
			seen[a.Name()] = true
			if got, ok := ByName(a.Name()); !ok || got.Name() != a.Name() {
				t.Errorf("ByName(%q) = %v, %v", a.Name(), got, ok)
			}
			d, ok := a.(adapters.Describer)
			if !ok {
				t.Fatalf("does not implement adapters.Describer")
			}
			if desc := d.Describe(); desc.Root == "" || desc.Fixture.Dir == "" {
				t.Errorf("Describe() = %+v: want what its root is and where its fixture lives", desc)
			}
			if _, ok := a.(corpus.Generator); !ok {
				t.Errorf("does not implement corpus.Generator (adapters/<agent>/benchgen.go)")
			}
			_, enc := a.(restore.Encoder)
			if restores := a.Capabilities().Restore; restores != enc {
				t.Errorf("Capabilities().Restore is %v but implementing restore.Encoder is %v", restores, enc)
			}
			if restores := a.Capabilities().Restore; restores == (d.Describe().NoRestore != "") {
				t.Errorf("Capabilities().Restore is %v and Describe().NoRestore is %q: an agent Pond only captures from says why", restores, d.Describe().NoRestore)
			}
		})
	}
}
