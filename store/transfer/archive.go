package transfer

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/store"
)

// A .pond file is one archive in one portable file: a zstd-compressed tar whose first entry is
// manifest.json (Manifest) and whose other entries are the Lance tables under lance/
// (lance/sessions.lance/…, as a local store holds them), compacted and with no replaced
// versions. Nothing else: the mirror is rebuilt from Lance wherever it is opened, and the
// erase denylist is the destination's own. Reading one unpacks it into a scratch folder and
// opens that as a store.

// ArchiveVersion is the .pond format this Pond writes; it reads no newer one.
const ArchiveVersion = 1

// ManifestName is the first entry of a .pond file.
const ManifestName = "manifest.json"

// lanceEntry is the folder of a .pond file holding the Lance tables.
const lanceEntry = "lance"

// Manifest describes a .pond file.
type Manifest struct {
	ArchiveVersion int       `json:"archive_version"`
	LayoutVersion  int       `json:"layout_version"` // store.SchemaVersion of the tables
	PondVersion    string    `json:"pond_version"`
	CreatedAt      time.Time `json:"created_at"`
	Rows           Rows      `json:"rows"`
	// EmbeddingModel is the model the stored vectors were made with ("" when none has one: a
	// copy carries no vectors, the destination embeds them again).
	EmbeddingModel string `json:"embedding_model"`
}

// Rows counts an archive's rows per table.
type Rows struct {
	Sessions int `json:"sessions"`
	Messages int `json:"messages"`
	Parts    int `json:"parts"`
}

// Describe is the manifest of the archive s holds.
func Describe(ctx context.Context, s *store.Store, pondVersion string) (Manifest, error) {
	m := Manifest{ArchiveVersion: ArchiveVersion, LayoutVersion: store.SchemaVersion, PondVersion: pondVersion,
		CreatedAt: time.Now().UTC().Truncate(time.Second)}
	c, err := s.Mirror().Counts(ctx)
	if err != nil {
		return m, err
	}
	m.Rows = Rows{Sessions: int(c.Sessions), Messages: int(c.Messages), Parts: int(c.Parts)}
	models, err := s.EmbeddingModels(ctx)
	if err != nil {
		return m, err
	}
	if len(models) > 0 {
		m.EmbeddingModel = models[0]
	}
	return m, nil
}

// Pack writes the Lance tables in lanceDir and m to w as a .pond file.
func Pack(w io.Writer, lanceDir string, m Manifest) error {
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := tw.WriteHeader(&tar.Header{Name: ManifestName, Mode: 0o600, Size: int64(len(b)), ModTime: m.CreatedAt, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(b); err != nil {
		return err
	}
	err = filepath.WalkDir(lanceDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(lanceDir, p)
		if err != nil {
			return err
		}
		name := path.Join(lanceEntry, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Name: name + "/", Mode: 0o700, ModTime: info.ModTime(), Typeflag: tar.TypeDir})
		case d.Type().IsRegular():
			if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: info.Size(), ModTime: info.ModTime(), Typeflag: tar.TypeReg}); err != nil {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.CopyN(tw, f, info.Size())
			return err
		default:
			return fmt.Errorf("transfer: %s is neither a file nor a folder", p)
		}
	})
	if err != nil {
		return fmt.Errorf("transfer: pack %s: %w", lanceDir, err)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// ReadManifest reads the manifest of the .pond file file, and checks this Pond can read it.
func ReadManifest(file string) (Manifest, error) {
	f, err := os.Open(file)
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		return Manifest{}, notPond(file, err)
	}
	defer zr.Close()
	return readManifest(tar.NewReader(zr), file)
}

func readManifest(tr *tar.Reader, file string) (Manifest, error) {
	var m Manifest
	h, err := tr.Next()
	if err != nil {
		return m, notPond(file, err)
	}
	if h.Name != ManifestName || h.Typeflag != tar.TypeReg || h.Size > 1<<20 {
		return m, notPond(file, fmt.Errorf("its first entry is %q, not %s", h.Name, ManifestName))
	}
	if err := json.NewDecoder(io.LimitReader(tr, h.Size)).Decode(&m); err != nil {
		return m, notPond(file, err)
	}
	switch {
	case m.ArchiveVersion < 1:
		return m, notPond(file, errors.New("the manifest has no archive_version"))
	case m.ArchiveVersion > ArchiveVersion:
		return m, fmt.Errorf("transfer: %s is a .pond file of version %d, newer than this Pond reads (%d): upgrade Pond", file, m.ArchiveVersion, ArchiveVersion)
	case m.LayoutVersion > store.SchemaVersion:
		return m, fmt.Errorf("transfer: %s holds tables of layout %d, newer than this Pond reads (%d): upgrade Pond", file, m.LayoutVersion, store.SchemaVersion)
	}
	return m, nil
}

func notPond(file string, err error) error {
	return fmt.Errorf("transfer: %s is not a readable .pond file: %w", file, err)
}

// Unpack extracts the .pond file file into dir (which must be empty or absent) and returns
// its manifest and the folder of its Lance tables. The file is untrusted: only folders and
// regular files under lance/ are written, each through an os.Root at dir (no entry can name a
// place outside it, follow a link or replace another entry).
func Unpack(file, dir string) (Manifest, string, error) {
	f, err := os.Open(file)
	if err != nil {
		return Manifest{}, "", err
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		return Manifest{}, "", notPond(file, err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	m, err := readManifest(tr, file)
	if err != nil {
		return m, "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return m, "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return m, "", err
	}
	defer root.Close()
	if err := root.Mkdir(lanceEntry, 0o700); err != nil {
		return m, "", err
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, "", notPond(file, err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name == lanceEntry && h.Typeflag == tar.TypeDir {
			continue
		}
		if !strings.HasPrefix(name, lanceEntry+"/") || path.Clean(name) != name || !fs.ValidPath(name) {
			return m, "", notPond(file, fmt.Errorf("unexpected entry %q", h.Name))
		}
		local := filepath.FromSlash(name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.Mkdir(local, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return m, "", fmt.Errorf("transfer: unpack %s: %w", h.Name, err)
			}
		case tar.TypeReg:
			out, err := root.OpenFile(local, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return m, "", fmt.Errorf("transfer: unpack %s: %w", h.Name, err)
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return m, "", fmt.Errorf("transfer: unpack %s: %w", h.Name, err)
			}
		default:
			return m, "", notPond(file, fmt.Errorf("entry %q is neither a file nor a folder", h.Name))
		}
	}
	return m, filepath.Join(dir, lanceEntry), nil
}
