package service

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pondhq/pond/paths"
)

// maxLogBytes is where PrepareRun starts a new log, keeping the previous one as daemon.log.1.
const maxLogBytes = 16 << 20

// PrepareRun makes this process ready to run the daemon where no service manager keeps its
// output (`pond service run`: the Windows logon task, the XDG autostart fallback). It leaves a
// console Windows created for it, sends stderr to LogFile (rotated past 16 MiB), and records
// the process id for `pond service stop`. done removes the record.
func PrepareRun(d paths.Dirs) (done func(), err error) {
	detachConsole()
	log := LogFile(d)
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		return nil, fmt.Errorf("service: log folder: %w", err)
	}
	if st, err := os.Stat(log); err == nil && st.Size() > maxLogBytes {
		os.Rename(log, log+".1")
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("service: open the log: %w", err)
	}
	if err := redirectStderr(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("service: send the log to %s: %w", log, err)
	}
	pid, me := pidFile(d.State.Path), strconv.Itoa(os.Getpid())+"\n"
	if err := writeFile(pid, []byte(me), 0o600); err != nil {
		return nil, err
	}
	return func() {
		// A second `service run` that lost to this one must not remove this one's record.
		if b, err := os.ReadFile(pid); err == nil && string(b) == me {
			os.Remove(pid)
		}
	}, nil
}
