package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/paths"
)

// ErrLocked is returned by TryLock when another writer holds the store.
var ErrLocked = errors.New("store: another writer holds the store")

// Holder says who holds the store lock.
type Holder struct {
	PID       int       `json:"pid"`
	Command   string    `json:"command"`
	StartedAt time.Time `json:"started_at"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "an unknown process"
	}
	return fmt.Sprintf("%s (pid %d, since %s)", h.Command, h.PID, h.StartedAt.Local().Format(time.DateTime))
}

// LockedError names the holder of a lock that was not free.
type LockedError struct{ Holder Holder }

func (e *LockedError) Error() string { return "store: locked by " + e.Holder.String() }
func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock is the store's single-writer lock: an exclusive advisory lock on a file in the state
// directory, plus a holder file naming the process. The kernel drops the lock when its
// holder dies, so a dead holder never blocks anyone; its holder file is simply overwritten.
type Lock struct {
	f          *os.File
	holderPath string
}

func lockPaths(stateDir string) (lock, holder string) {
	return filepath.Join(stateDir, "store.lock"), filepath.Join(stateDir, "store.holder.json")
}

// TryLock takes the lock, or returns a *LockedError naming the holder.
func TryLock(stateDir, command string) (*Lock, error) {
	lockPath, holderPath := lockPaths(stateDir)
	if err := paths.MkdirPrivate(stateDir); err != nil {
		return nil, fmt.Errorf("store: state dir: %w", err)
	}
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, paths.FileMode)
	if err == nil {
		err = paths.ChmodPrivate(lockPath)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("store: lock file: %w", err)
	}
	ok, err := tryFlock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: lock %s: %w", lockPath, err)
	}
	if !ok {
		f.Close()
		return nil, &LockedError{Holder: ReadHolder(stateDir)}
	}
	h := Holder{PID: os.Getpid(), Command: command, StartedAt: time.Now().UTC()}
	b, _ := json.Marshal(h)
	// The holder file only names the running holder (after a crash the kernel has dropped the
	// lock and the file means nothing), so it need not reach the disk: writers take the lock
	// once per batch.
	if err := atomicfile.WriteVolatile(holderPath, b, paths.FileMode); err != nil {
		unflock(f)
		f.Close()
		return nil, err
	}
	return &Lock{f: f, holderPath: holderPath}, nil
}

// AcquireLock waits for the lock until ctx ends, calling waiting once (with the holder) if it
// has to wait.
func AcquireLock(ctx context.Context, stateDir, command string, waiting func(Holder)) (*Lock, error) {
	told := false
	for {
		l, err := TryLock(stateDir, command)
		var le *LockedError
		if !errors.As(err, &le) {
			return l, err
		}
		if !told && waiting != nil {
			waiting(le.Holder)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("store: waiting for %s: %w", le.Holder, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ReadHolder reads who holds (or last held) the lock.
func ReadHolder(stateDir string) Holder {
	_, holderPath := lockPaths(stateDir)
	var h Holder
	if b, err := os.ReadFile(holderPath); err == nil {
		_ = json.Unmarshal(b, &h)
	}
	return h
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	os.Remove(l.holderPath)
	err := unflock(l.f)
	cerr := l.f.Close()
	l.f = nil
	return errors.Join(err, cerr)
}
