package cursor

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/pondhq/pond/adapters"
)

// links are what the workspaces and the 3.x headers say of the composers: the record of a
// composer names neither its folder nor (for a sub-agent) its parent.
type links struct {
	project   map[string]string // composer → workspace folder
	workspace map[string]string // composer → workspaceStorage folder name
	sub       map[string]bool   // composer → marked a sub-agent by the headers
	header    map[string]json.RawMessage
}

// loadLinks reads every workspace database's composer list (ItemTable composer.composerData,
// {"allComposers": [{"composerId": …}]}) and the global database's headers: ItemTable
// composer.composerHeaders of the same shape and, in 3.x, the composerHeaders table. A
// composer listed by several workspaces belongs to the first in folder-name order.
func loadLinks(ctx context.Context, env adapters.Env, ws []workspace, global queryer, out adapters.Emitter) (*links, error) {
	l := &links{project: map[string]string{}, workspace: map[string]string{}, sub: map[string]bool{}, header: map[string]json.RawMessage{}}
	byHash := map[string]workspace{}
	for _, w := range ws {
		byHash[w.hash] = w
		if w.db == "" {
			continue
		}
		raw, err := itemValue(ctx, env, w.db, "composer.composerData")
		if err != nil {
			// A workspace database being replaced, or not one Cursor wrote: its composers
			// fall back to what their bubbles say.
			out.Malformed(adapters.Location{Path: w.db}, err)
			continue
		}
		eachComposer(raw, func(id string, _ *adapters.Node) {
			if _, ok := l.workspace[id]; !ok {
				l.workspace[id] = w.hash
				l.project[id] = w.folder
			}
		})
	}
	header := func(id string, n *adapters.Node, wsID string) {
		l.header[id] = n.Raw
		if b, ok := n.Object().Bool("isSubagent"); ok && b {
			l.sub[id] = true
		}
		if wsID == "" {
			wsID = n.Str("workspaceId")
		}
		if wsID == "" {
			wsID = n.Kid("workspaceIdentifier").Str("id")
		}
		if w, ok := byHash[wsID]; ok {
			if _, listed := l.workspace[id]; !listed {
				l.workspace[id], l.project[id] = w.hash, w.folder
			}
		}
	}
	if ok, err := hasTable(ctx, global, "ItemTable"); err != nil {
		return nil, err
	} else if ok {
		var raw []byte
		err := global.QueryRowContext(ctx, "SELECT value FROM ItemTable WHERE key = 'composer.composerHeaders'").Scan(&raw)
		if err != nil && err != sql.ErrNoRows {
			return nil, err
		}
		eachComposer(raw, func(id string, n *adapters.Node) { header(id, n, "") })
	}
	if ok, err := hasTable(ctx, global, "composerHeaders"); err != nil {
		return nil, err
	} else if ok {
		rows, err := global.QueryContext(ctx, "SELECT * FROM composerHeaders")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return nil, err
			}
			var id, wsID string
			var value []byte
			for i, c := range cols {
				switch c {
				case "composerId":
					id = text(vals[i])
				case "workspaceId":
					wsID = text(vals[i])
				case "value":
					value = []byte(text(vals[i]))
				}
			}
			if id == "" {
				continue
			}
			n, err := adapters.ReadObject(value, &adapters.Shape{Members: map[string]*adapters.Shape{"workspaceIdentifier": {}}})
			if err != nil {
				n = &adapters.Node{Raw: adapters.String(string(value))}
			}
			header(id, n, wsID)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// eachComposer calls fn with each entry of a composer catalogue: {"allComposers": [{…}]}, or a
// bare list of them.
func eachComposer(raw []byte, fn func(id string, n *adapters.Node)) {
	if len(raw) == 0 {
		return
	}
	n, err := adapters.ReadNode(raw, &adapters.Shape{Members: map[string]*adapters.Shape{"allComposers": {Members: map[string]*adapters.Shape{"workspaceIdentifier": {}}}}})
	if err != nil {
		return
	}
	list := n.List()
	if n.Members != nil {
		list = n.Kid("allComposers").List()
	}
	for _, c := range list {
		if id := c.Str("composerId"); id != "" {
			fn(id, c)
		}
	}
}

// itemValue reads one ItemTable value of a (workspace) database; nil when absent.
func itemValue(ctx context.Context, env adapters.Env, path, key string) ([]byte, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if ok, err := hasTable(ctx, db, "ItemTable"); err != nil || !ok {
		return nil, err
	}
	var v []byte
	err = db.QueryRowContext(ctx, "SELECT value FROM ItemTable WHERE key = ?", key).Scan(&v)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	return v, err
}

// readIDE reads the composers of the global database that changed since cur: the key index
// says which (rowFacts), the workspaces and headers where each belongs (links); only those
// whose signature moved are loaded and emitted, each whole, one at a time. The cursor keeps
// every composer's signature, untouched ones as they were, so no pass forgets a chat it did
// not read. A composer gone from the database leaves the cursor; what was captured of it stays
// in the archive.
func readIDE(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	userDir := filepath.Dir(filepath.Dir(filepath.Dir(src.Path)))
	st, old := decodeIDEState(cur.State)
	stamp, ws, err := ideStamp(userDir)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("cursor: read %s: %w", src.Path, err)
	}
	wsd := wsDigest(ws)
	db, err := openDB(env, src.Path)
	if err != nil {
		return adapters.Cursor{}, err
	}
	defer db.Close()
	fail := func(err error) (adapters.Cursor, error) {
		return adapters.Cursor{}, fmt.Errorf("cursor: read %s: %w", src.Path, err)
	}
	if ok, err := hasTable(ctx, db, "cursorDiskKV"); err != nil {
		return fail(err)
	} else if !ok {
		return adapters.Cursor{Stamp: stamp, State: encodeIDEState(wsd, nil, nil)}, nil
	}
	facts, err := listComposers(ctx, db)
	if err != nil {
		return fail(err)
	}
	ids := make([]string, 0, len(facts))
	for id := range facts {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	parents := map[string]string{}
	for k, p := range st.P {
		if facts[k] != nil {
			parents[k] = p
		}
	}
	var l *links
	getLinks := func() (*links, error) {
		if l == nil {
			var err error
			if l, err = loadLinks(ctx, env, ws, db, out); err != nil {
				return nil, err
			}
		}
		return l, nil
	}
	linkOf := func(id string) ([4]byte, error) {
		l, err := getLinks()
		if err != nil {
			return [4]byte{}, err
		}
		return linkSig(l.project[id], parents[id], l.sub[id]), nil
	}
	// The signatures now, and the entries the cursor keeps: each composer as last emitted.
	now := make(map[string]entry, len(ids))
	keep := make(map[[8]byte]entry, len(ids))
	var todo []string
	for _, id := range ids {
		d := idDigest(id)
		e := entry{rec: facts[id].sig()}
		prev, seen := old[d]
		if seen && st.WS == wsd {
			e.link = prev.link // no workspace changed: neither did the links
		} else if e.link, err = linkOf(id); err != nil {
			return fail(err)
		}
		now[id] = e
		if seen {
			keep[d] = prev
		}
		if !seen || prev != e {
			todo = append(todo, id)
		}
	}
	ckpt, _ := out.(adapters.Checkpointer)
	info, _ := os.Stat(src.Path)
	for round := 0; len(todo) > 0 && round < 4; round++ {
		if _, err := getLinks(); err != nil {
			return fail(err)
		}
		learned := map[string]bool{}
		pending := map[string]bool{}
		for _, id := range todo {
			pending[id] = true
		}
		for _, id := range todo {
			delete(pending, id)
			if err := ctx.Err(); err != nil {
				return adapters.Cursor{}, err
			}
			c, err := loadComposer(ctx, db, src.Path, id)
			if err != nil {
				return fail(err)
			}
			c.project, c.workspace, c.sub, c.header = l.project[id], l.workspace[id], l.sub[id], l.header[id]
			c.parent = parents[id]
			if info != nil {
				c.fallback = info.ModTime()
			}
			kids, err := emitComposer(c, out)
			if err != nil {
				return adapters.Cursor{}, err
			}
			e := now[id]
			e.link = linkSig(c.project, c.parent, c.sub)
			now[id] = e
			keep[idDigest(id)] = e
			for _, k := range kids {
				if facts[k] != nil && parents[k] != id {
					parents[k] = id
					// Read again with its parent, unless it is still to come in this round.
					learned[k] = !pending[k]
				}
			}
			if ckpt != nil && ckpt.WantCheckpoint() {
				ckpt.Checkpoint(adapters.Cursor{State: encodeIDEState(st.WS, keep, parents)})
			}
		}
		// A sub-agent read before its parent named it is read again with its parent.
		todo = todo[:0]
		for k, again := range learned {
			if again {
				todo = append(todo, k)
			}
		}
		sort.Strings(todo)
	}
	return adapters.Cursor{Stamp: stamp, State: encodeIDEState(wsd, keep, parents)}, nil
}

// loadComposer reads one composer's record and bubbles in one read transaction (one snapshot;
// a WAL writer never waits for it).
func loadComposer(ctx context.Context, db *sql.DB, path, id string) (*composer, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	c := &composer{id: id, db: path}
	err = tx.QueryRowContext(ctx, "SELECT value FROM cursorDiskKV WHERE key = ?", composerPrefix+id).Scan(&c.record)
	if err != nil && err != sql.ErrNoRows {
		return nil, err
	}
	if c.record == nil && err == nil {
		c.record = []byte("null") // a NULL value: reported as not an object
	}
	lo, hi := keyRange(bubblePrefix + id + ":")
	rows, err := tx.QueryContext(ctx, "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key", lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r kv
		if err := rows.Scan(&r.key, &r.value); err != nil {
			return nil, err
		}
		if r.value == nil {
			r.value = []byte("null")
		}
		c.bubbles = append(c.bubbles, r)
	}
	return c, rows.Err()
}
