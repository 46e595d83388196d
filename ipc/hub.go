package ipc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Hub numbers the daemon's events and fans them out to /v1/watch streams. It keeps the last
// few so a client that reconnects with ?since= misses nothing; the epoch changes on every
// daemon start, so ids from an earlier run are recognised as stale.
type Hub struct {
	mu    sync.Mutex
	epoch string
	last  uint64
	ring  []apitype.Event // the most recent events, oldest first
	keep  int
	subs  map[chan apitype.Event]struct{}
}

// NewHub returns a hub remembering the last keep events.
func NewHub(keep int) *Hub {
	return &Hub{epoch: strconv.FormatInt(time.Now().UnixNano(), 36), keep: keep, subs: map[chan apitype.Event]struct{}{}}
}

// Epoch identifies this daemon run.
func (h *Hub) Epoch() string { return h.epoch }

// Publish sends an event of type typ with data (its payload from session/view, or nil) to every
// watcher, and keeps it for watchers that reconnect.
func (h *Hub) Publish(typ string, data any) {
	var raw json.RawMessage
	if data != nil {
		raw, _ = json.Marshal(data)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last++
	ev := apitype.Event{Epoch: h.epoch, ID: h.last, Type: typ, Time: time.Now().UTC(), Data: raw}
	h.ring = append(h.ring, ev)
	if len(h.ring) > h.keep {
		h.ring = h.ring[len(h.ring)-h.keep:]
	}
	for ch := range h.subs {
		select {
		case ch <- ev:
		default:
			// A watcher this far behind is cut off; it reconnects with since and catches up
			// from the ring (or gets a reset).
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// PublishLive sends an event to the watchers connected now and keeps it for nobody: progress,
// stale as soon as the next arrives. It carries the id of the last kept event, so a cursor taken
// from it resumes after that one; a watcher too far behind misses it rather than being cut off.
func (h *Hub) PublishLive(typ string, data any) {
	raw, _ := json.Marshal(data)
	h.mu.Lock()
	defer h.mu.Unlock()
	ev := apitype.Event{Epoch: h.epoch, ID: h.last, Type: typ, Time: time.Now().UTC(), Data: raw}
	for ch := range h.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

// Subscribe returns what a client resuming after since must see first, and a channel of the
// events that follow; cancel stops the subscription. since is "<epoch>:<id>" or empty.
func (h *Hub) Subscribe(since string) (first []apitype.Event, live <-chan apitype.Event, cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan apitype.Event, 256)
	h.subs[ch] = struct{}{}
	cancel = func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
	now := time.Now().UTC()
	epoch, id, ok := parseCursor(since)
	switch {
	case since == "":
		first = []apitype.Event{{Epoch: h.epoch, ID: h.last, Type: apitype.EventHello, Time: now}}
	case !ok || epoch != h.epoch || id > h.last || (id < h.last && (len(h.ring) == 0 || id+1 < h.ring[0].ID)):
		reason := "the daemon restarted since"
		if ok && epoch == h.epoch {
			reason = "events since then are no longer kept"
		} else if !ok {
			reason = "since is not <epoch>:<id>"
		}
		data, _ := json.Marshal(view.Reset{Reason: reason, Since: since})
		first = []apitype.Event{{Epoch: h.epoch, ID: h.last, Type: apitype.EventReset, Time: now, Data: data}}
	default:
		for _, ev := range h.ring {
			if ev.ID > id {
				first = append(first, ev)
			}
		}
	}
	return first, ch, cancel
}

func parseCursor(s string) (epoch string, id uint64, ok bool) {
	e, n, found := strings.Cut(s, ":")
	if !found || e == "" {
		return "", 0, false
	}
	id, err := strconv.ParseUint(n, 10, 64)
	return e, id, err == nil
}

// serveWatch streams events as newline-delimited JSON until the client leaves or the daemon
// stops. A client cut off for falling behind sees the stream end and resumes with since.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request) {
	if s.Hub == nil {
		writeError(w, &apitype.Error{Code: apitype.CodeNotImplemented, Message: "this server has no event stream"})
		return
	}
	if n := s.watchers.Add(1); n > int64(s.MaxWatchers) {
		s.watchers.Add(-1)
		writeError(w, &apitype.Error{Code: apitype.CodeBusy, Message: fmt.Sprintf("%d clients already follow the event stream, the most the daemon serves; try again once one leaves", s.MaxWatchers)})
		return
	}
	defer s.watchers.Add(-1)
	first, live, cancel := s.Hub.Subscribe(r.URL.Query().Get("since"))
	defer cancel()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	flush := func() bool {
		if bw.Flush() != nil {
			return false
		}
		http.NewResponseController(w).Flush()
		return true
	}
	for _, ev := range first {
		enc.Encode(ev)
	}
	if !flush() {
		return
	}
	for {
		select {
		case ev, ok := <-live:
			if !ok {
				return
			}
			enc.Encode(ev)
			if !flush() {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
}
