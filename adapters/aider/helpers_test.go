package aider

import (
	"os"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

func TestMain(m *testing.M) {
	location = time.UTC // header times are local; the tests' are read as UTC wherever they run
	os.Exit(m.Run())
}

var testEnv = adaptertest.FakeEnv("linux", "/home/nobody", nil)

// readTestdata reads every source under the fixture.
func readTestdata(t *testing.T) *adaptertest.Collector {
	t.Helper()
	var c adaptertest.Collector
	// The run before its first header is dated by the file.
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	if err := os.Chtimes("testdata/home/work/api/"+HistoryFile, at, at); err != nil {
		t.Fatal(err)
	}
	adaptertest.ReadRoot(t, Adapter{}, testEnv, "testdata/home", nil, &c)
	return &c
}

// readFile reads one file as a source under key.
func readFile(t testing.TB, key, path string, cur adapters.Cursor, c *adaptertest.Collector) adapters.Cursor {
	t.Helper()
	return adaptertest.ReadSource(t, Adapter{}, testEnv, key, path, cur, c)
}
