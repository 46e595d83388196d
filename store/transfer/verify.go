package transfer

import (
	"context"
	"slices"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// Verify checks that every key of src is stored once at dst.
func Verify(ctx context.Context, src, dst *store.Store) (*view.CopyVerification, error) {
	denied, err := dst.Denied()
	if err != nil {
		return nil, err
	}
	v := &view.CopyVerification{OK: true}
	for _, table := range store.TableNames() {
		have, err := dst.KeyCounts(ctx, table)
		if err != nil {
			return nil, err
		}
		want, err := src.KeyCounts(ctx, table)
		if err != nil {
			return nil, err
		}
		c := view.TableCheck{Table: table, Source: total(want), Destination: total(have)}
		for k := range want {
			if have[k] > 0 {
				continue
			}
			if _, ok := denied[store.SessionOfKey(k)]; ok {
				c.Erased++
				continue
			}
			c.Missing++
			c.MissingKeys = append(c.MissingKeys, k)
		}
		for k, n := range have {
			if n > 1 {
				c.Duplicates++
				c.DuplicateKeys = append(c.DuplicateKeys, k)
			}
		}
		c.MissingKeys, c.DuplicateKeys = few(c.MissingKeys), few(c.DuplicateKeys)
		if c.Missing > 0 || c.Duplicates > 0 {
			v.OK = false
		}
		v.Tables = append(v.Tables, c)
	}
	return v, nil
}

func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// few sorts keys and keeps the first ten, readable.
func few(keys []string) []string {
	slices.Sort(keys)
	if len(keys) > 10 {
		keys = keys[:10]
	}
	for i, k := range keys {
		b := []byte(k)
		for j := range b {
			if b[j] == 0 {
				b[j] = '/'
			}
		}
		keys[i] = string(b)
	}
	return keys
}
