package service

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Logs writes the daemon's last lines to w, and with follow goes on until ctx ends: from the
// journal for a systemd unit, else from LogFile.
func (m *Manager) Logs(ctx context.Context, w io.Writer, lines int, follow bool) error {
	argv, err := m.LogsCommand(ctx, lines, follow)
	if err != nil {
		return err
	}
	if argv != nil {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Run(); err != nil && ctx.Err() == nil {
			return fmt.Errorf("service: %s: %w", quoteArgs(argv), err)
		}
		return nil
	}
	return tail(ctx, w, LogFile(m.opts.Dirs), lines, follow)
}

// tail prints the last n lines of path and, with follow, what is appended after them.
func tail(ctx context.Context, w io.Writer, path string, n int, follow bool) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("service: no daemon log yet at %s (the daemon writes it once it runs as a login service)", path)
	} else if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	defer f.Close()
	var last [][]byte
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			last = append(last, line)
			if len(last) > n {
				last = last[1:]
			}
		}
		if err != nil {
			break
		}
	}
	if _, err := w.Write(bytes.Join(last, nil)); err != nil {
		return err
	}
	for follow {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
	return nil
}
