package resume_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/resume"
)

// TestTargets: Pond restores into exactly the registered adapters that declare
// Capabilities().Restore, in adapters/all's order, each with a root to restore into; an adapter
// that declares it also implements restore.Encoder (adapters/all's tests check), so a restore
// through it is planned (TestNativeRoundTrip, TestForeignRestore).
func TestTargets(t *testing.T) {
	var want []string
	for _, a := range all.Adapters() {
		if a.Capabilities().Restore {
			want = append(want, a.Name())
		}
	}
	if diff := cmp.Diff(want, resume.Targets()); diff != "" {
		t.Errorf("targets (-declared +restored into):\n%s", diff)
	}
	for _, to := range resume.Targets() {
		if resume.NativeRoot(to, testEnv(t.TempDir())) == "" {
			t.Errorf("%s: no native root", to)
		}
	}
}
