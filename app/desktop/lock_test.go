//go:build unix

package desktop

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestLockSingleInstance(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run", "tray.lock")
	unlock, err := lock(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock(p); !errors.Is(err, ErrRunning) {
		t.Fatalf("second lock: got %v want ErrRunning", err)
	}
	unlock()
	again, err := lock(p)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
