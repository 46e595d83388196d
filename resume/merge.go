package resume

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// member is one member of a JSON object, its name and its value as written.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers reads data as one JSON object: its members in order.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{name, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return out, nil
}

// checkMerge checks, before anything is written, that the members of add can go into the
// object the file at path holds: the file, when it exists, is a regular file holding a JSON
// object none of whose names add has.
func checkMerge(path string, add []byte) error {
	adding, err := objectMembers(add)
	if err != nil {
		return fmt.Errorf("plan for %s: %w", path, err)
	}
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return &unsafeError{path, "not a regular file"}
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	return mergeable(path, old, adding)
}

// mergeable: old is a JSON object without any of adding's names.
func mergeable(path string, old []byte, adding []member) error {
	have, err := objectMembers(old)
	if err != nil {
		return &unsafeError{path, fmt.Sprintf("cannot add to it: %v", err)}
	}
	names := map[string]bool{}
	for _, m := range have {
		names[m.name] = true
	}
	for _, m := range adding {
		if names[m.name] {
			return &existsError{fmt.Sprintf("%s: %q", path, m.name)}
		}
	}
	return nil
}

// merged is old with adding's members appended before its closing brace: old's bytes are
// kept as they are.
func merged(old []byte, adding []member) []byte {
	body := bytes.TrimRight(old, " \t\r\n")
	body = bytes.TrimRight(body[:len(body)-1], " \t\r\n") // without its '}'
	var b bytes.Buffer
	b.Write(body)
	for i, m := range adding {
		if i > 0 || !bytes.HasSuffix(body, []byte("{")) {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		b.WriteString("\n  ")
		b.Write(name)
		b.WriteString(": ")
		b.Write(m.value)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// mergeOne adds the members of add to the JSON object file rel below r, or writes add when it
// does not exist. The new content goes to a temporary file in the same folder, which replaces
// the file only if the file still holds what was read (an agent writing its index meanwhile
// fails the restore instead of losing its write). It returns the undo, which puts the file's
// old content back (or removes the file it created) if the file still holds the merge.
func mergeOne(r *os.Root, rel string, add []byte, now time.Time) (func(), error) {
	adding, err := objectMembers(add)
	if err != nil {
		return nil, err
	}
	old, err := r.ReadFile(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if err := writeOne(r, rel, add, now); errors.Is(err, errTaken) {
			return nil, &existsError{rel}
		} else if err != nil {
			return nil, err
		}
		return func() {
			if cur, err := r.ReadFile(rel); err == nil && bytes.Equal(cur, add) {
				r.Remove(rel)
			}
		}, nil
	}
	if err != nil {
		return nil, err
	}
	info, err := r.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &unsafeError{rel, "not a regular file"}
	}
	if err := mergeable(rel, old, adding); err != nil {
		return nil, err
	}
	data := merged(old, adding)
	if err := replaceIf(r, rel, old, data, info.Mode().Perm(), now); err != nil {
		return nil, err
	}
	return func() { _ = replaceIf(r, rel, data, old, info.Mode().Perm(), info.ModTime()) }, nil
}

// replaceIf replaces the file rel below r, which must hold was, with data, through a synced
// temporary file renamed over it.
func replaceIf(r *os.Root, rel string, was, data []byte, perm fs.FileMode, mtime time.Time) error {
	var nonce [8]byte
	rand.Read(nonce[:])
	tmp := filepath.Join(filepath.Dir(rel), ".pond-restore-"+hex.EncodeToString(nonce[:]))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer r.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Chtimes(tmp, mtime, mtime)
	}
	if err != nil {
		return err
	}
	if cur, err := r.ReadFile(rel); err != nil || !bytes.Equal(cur, was) {
		return fmt.Errorf("%s changed while the restore wrote it; nothing was changed", rel)
	}
	if err := r.Rename(tmp, rel); err != nil {
		return err
	}
	if d, err := r.Open(filepath.Dir(rel)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
