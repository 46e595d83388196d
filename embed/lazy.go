package embed

import (
	"context"
	"sync"
	"time"
)

// DefaultIdle is how long a loaded model stays in memory unused.
const DefaultIdle = 60 * time.Second

// Model is a loaded embedder that must be closed to free its memory.
type Model interface {
	Embedder
	Close()
}

// Lazy is an Embedder that loads its model on first use and unloads it after Idle without
// use, so a daemon that rarely embeds does not hold a model's memory. Concurrent callers share
// the one loaded model; a caller never sees it closed under it.
type Lazy struct {
	cfg  ModelConfig
	open func() (Model, error)
	idle time.Duration

	mu    sync.Mutex
	m     Model
	users int
	gen   int // bumped on every use, so a stale timer never evicts
	timer *time.Timer
	loads int
}

// NewLazy returns an embedder for the model described by cfg that open loads on demand; idle
// <= 0 means DefaultIdle.
func NewLazy(cfg ModelConfig, open func() (Model, error), idle time.Duration) *Lazy {
	if idle <= 0 {
		idle = DefaultIdle
	}
	return &Lazy{cfg: cfg, open: open, idle: idle}
}

// Dimensions is the model's vector length, known without loading it.
func (l *Lazy) Dimensions() int { return l.cfg.Dimensions }

// Model names the model, known without loading it.
func (l *Lazy) Model() string { return l.cfg.ID() }

// Embed loads the model if needed and embeds texts.
func (l *Lazy) Embed(ctx context.Context, texts []string, kind Kind) ([][]float32, error) {
	m, err := l.acquire()
	if err != nil {
		return nil, err
	}
	defer l.release()
	return m.Embed(ctx, texts, kind)
}

// EmbedTruncated is Embed that also says which texts were cut at the model's token limit,
// when the model reports it (otherwise none is marked).
func (l *Lazy) EmbedTruncated(ctx context.Context, texts []string, kind Kind) ([][]float32, []bool, error) {
	m, err := l.acquire()
	if err != nil {
		return nil, nil, err
	}
	defer l.release()
	if tr, ok := m.(interface {
		EmbedTruncated(context.Context, []string, Kind) ([][]float32, []bool, error)
	}); ok {
		return tr.EmbedTruncated(ctx, texts, kind)
	}
	vecs, err := m.Embed(ctx, texts, kind)
	return vecs, make([]bool, len(texts)), err
}

func (l *Lazy) acquire() (Model, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		m, err := l.open() // under the lock: concurrent first callers wait for one load
		if err != nil {
			return nil, err
		}
		l.m = m
		l.loads++
	}
	l.users++
	l.gen++
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	return l.m, nil
}

func (l *Lazy) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.users--
	if l.users > 0 || l.m == nil {
		return
	}
	gen := l.gen
	l.timer = time.AfterFunc(l.idle, func() { l.evict(gen) })
}

// evict unloads the model if nothing used it since the timer of use gen was set.
func (l *Lazy) evict(gen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gen != gen || l.users > 0 || l.m == nil {
		return
	}
	l.m.Close()
	l.m = nil
	l.timer = nil
}

// Loaded reports whether the model is in memory, and how many times it has been loaded.
func (l *Lazy) Loaded() (loaded bool, loads int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m != nil, l.loads
}

// Close unloads the model now; a later Embed loads it again.
func (l *Lazy) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.m != nil && l.users == 0 {
		l.m.Close()
		l.m = nil
	}
}
