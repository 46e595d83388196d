package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/model"
	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
)

// The embedding model. `pond model install` downloads or copies a model's files into the models
// folder itself, with its progress on the user's terminal, then asks for "enable": installing
// writes a new folder that is renamed into place whole, which nobody else writes, while the
// config, which says which model is on, keeps one writer (the daemon, when one runs). The
// daemon's search switches to the enabled model at once, without a restart.

// servedModel is the model the store's vector search uses (the daemon's; a CLI process loads
// one per command instead).
type servedModel struct {
	mu   sync.Mutex // one model change at a time
	lazy *embed.Lazy
}

func (s *Service) modelsDir() string { return paths.ModelsDir(s.Dirs.Data.Path) }

// InitONNX loads ONNX Runtime from where `pond doctor` finds it.
func InitONNX(d paths.Dirs, cfg *config.Config) error {
	lib, found := paths.ONNXRuntimeLib(cfg.ONNXRuntime.Library, d)
	if !found {
		return fmt.Errorf("ONNX Runtime %s not found (looked for %s): run `make setup`, or set %s", paths.ONNXRuntimeVersion, lib.Path, paths.EnvONNXRuntimeLib)
	}
	_, err := onnx.Init(lib.Path)
	return err
}

// CheckModel opens the model in dir on ONNX Runtime and embeds one text: proof that it works.
func CheckModel(dir string) error {
	e, err := onnx.Open(dir)
	if err != nil {
		return err
	}
	defer e.Close()
	_, err = e.Embed(context.Background(), []string{"Pond checks that the model loads."}, embed.Query)
	return err
}

// installed is the install record of model id, or not_found.
func (s *Service) installed(id string) (*model.Installed, error) {
	in, err := model.Load(s.modelsDir(), id)
	if err != nil {
		return nil, &apitype.Error{Code: apitype.CodeNotFound, Message: err.Error()}
	}
	return in, nil
}

// ModelError is why the configured embedding model cannot run: ONNX Runtime is missing
// (Runtime), or the model's files do not load.
type ModelError struct {
	Runtime bool
	Err     error
}

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// lazyModel is an embedder for in that loads the model on the first vector search and unloads
// it when idle.
func (s *Service) lazyModel(cfg *config.Config, in *model.Installed) (*embed.Lazy, error) {
	if err := InitONNX(s.Dirs, cfg); err != nil {
		return nil, &ModelError{Runtime: true, Err: fmt.Errorf("semantic search: %w", err)}
	}
	return embed.NewLazy(in.Config, func() (embed.Model, error) {
		m, err := onnx.Open(in.Dir)
		if err != nil {
			return nil, &ModelError{Err: fmt.Errorf("semantic search: %w", err)}
		}
		return m, nil
	}, 0), nil
}

// useModel points the store's vector search at next (nil: semantic search off). The model it
// replaces is closed, which waits for no search: one that still holds it finishes with it and
// it is unloaded when idle. Call with s.model.mu held.
func (s *Service) useModel(next *embed.Lazy) {
	if s.Store == nil {
		return
	}
	prev := s.model.lazy
	s.model.lazy = next
	if next == nil {
		s.Store.UseEmbedder(nil) // not a typed nil in the interface
	} else {
		s.Store.UseEmbedder(next)
	}
	if prev != nil {
		prev.Close()
	}
}

// serveModel makes the store's vector search use the model cfg turns on, if any: the daemon's
// start-up.
func (s *Service) serveModel(cfg *config.Config) error {
	if !cfg.Embeddings.Enabled || cfg.Embeddings.Model == "" {
		return nil
	}
	in, err := s.installed(cfg.Embeddings.Model)
	if err != nil {
		return err
	}
	l, err := s.lazyModel(cfg, in)
	if err != nil {
		return err
	}
	s.model.mu.Lock()
	defer s.model.mu.Unlock()
	s.useModel(l)
	return nil
}

// Model reports whether semantic search is on, the installed models and, for the active one,
// how much of the archive is embedded (when the archive is open).
func (s *Service) Model(ctx context.Context) (*view.ModelStatus, error) {
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	return s.modelStatus(ctx, cfg)
}

func (s *Service) modelStatus(ctx context.Context, cfg *config.Config) (*view.ModelStatus, error) {
	st := &view.ModelStatus{Enabled: cfg.Embeddings.Enabled, Model: cfg.Embeddings.Model}
	list, err := model.List(s.modelsDir())
	if err != nil {
		return nil, err
	}
	st.Installed = make([]view.InstalledModel, len(list))
	for i, in := range list {
		st.Installed[i] = installedView(in)
	}
	if s.Store == nil || !cfg.Embeddings.Enabled || cfg.Embeddings.Model == "" {
		return st, nil
	}
	if in, err := model.Load(s.modelsDir(), cfg.Embeddings.Model); err == nil {
		c, err := s.Store.EmbedCounts(ctx, in.Config.ID())
		if err != nil {
			return nil, err
		}
		st.Embedded = &view.EmbeddedMessages{Model: in.Config.ID(), Searchable: c.Searchable, ThisModel: c.ThisModel, Other: c.Embedded - c.ThisModel}
	}
	return st, nil
}

// SetModel turns semantic search on with an installed model, or off (and deletes the model's
// files with remove). With the archive open (the daemon) the model is loaded and tried before
// the config names it, so a model the daemon cannot run is never the configured one, and
// vector search switches at once.
func (s *Service) SetModel(ctx context.Context, req *apitype.ModelRequest) (*view.ModelStatus, error) {
	s.model.mu.Lock()
	defer s.model.mu.Unlock()
	var cfg *config.Config
	var removed string
	switch req.Action {
	case "enable":
		cur, err := s.loadConfig()
		if err != nil {
			return nil, err
		}
		id := req.Model
		if id == "" {
			id = cur.Embeddings.Model
		}
		if id == "" {
			return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "model is required: name@revision of an installed model"}
		}
		in, err := s.installed(id)
		if err != nil {
			return nil, err
		}
		var next *embed.Lazy
		if s.Store != nil {
			if next, err = s.lazyModel(cur, in); err != nil {
				return nil, err
			}
			if _, err := next.Embed(ctx, []string{"Pond checks that the model loads."}, embed.Query); err != nil {
				next.Close()
				var me *ModelError
				if errors.As(err, &me) {
					err = me.Err
				}
				return nil, &ModelError{Err: fmt.Errorf("model %s does not load: %w", in.ID, err)}
			}
		}
		cfg, err = s.editConfig(func(c *config.Config) error {
			c.Embeddings.Enabled, c.Embeddings.Model = true, in.ID
			return nil
		})
		if err != nil {
			if next != nil {
				next.Close()
			}
			return nil, err
		}
		s.useModel(next)
	case "disable":
		var id string
		var err error
		cfg, err = s.editConfig(func(c *config.Config) error {
			id = c.Embeddings.Model
			c.Embeddings.Enabled = false
			if req.Remove {
				c.Embeddings.Model = ""
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		s.useModel(nil)
		if req.Remove && id != "" {
			in, err := s.installed(id)
			if err != nil {
				return nil, err
			}
			if err := os.RemoveAll(in.Dir); err != nil {
				return nil, err
			}
			removed = in.Dir
		}
	default:
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: fmt.Sprintf("unknown action %q (want enable or disable)", req.Action)}
	}
	s.publish(apitype.EventModel, view.ModelChanged{Action: req.Action, Enabled: cfg.Embeddings.Enabled, Model: cfg.Embeddings.Model})
	st, err := s.modelStatus(ctx, cfg)
	if err != nil {
		return nil, err
	}
	st.ConfigFile, st.Removed = s.Dirs.ConfigFile.Path, removed
	return st, nil
}

// VerifyModel re-hashes an installed model's files (the configured model unless one is named)
// and, when they match, checks that it loads.
func (s *Service) VerifyModel(ctx context.Context, req *apitype.ModelVerifyRequest) (*view.ModelVerify, error) {
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	id := req.Model
	if id == "" {
		if !cfg.Embeddings.Enabled || cfg.Embeddings.Model == "" {
			return nil, &apitype.Error{Code: apitype.CodeNotFound, Message: view.MsgEmbeddingsOff}
		}
		id = cfg.Embeddings.Model
	}
	in, err := s.installed(id)
	if err != nil {
		return nil, err
	}
	problems := in.Verify()
	if len(problems) == 0 {
		if err := InitONNX(s.Dirs, cfg); err != nil {
			return nil, err
		}
		if err := CheckModel(in.Dir); err != nil {
			problems = append(problems, model.Problem{File: "model.onnx", Detail: "does not load: " + err.Error()})
		}
	}
	out := &view.ModelVerify{Model: in.ID, Dir: in.Dir, OK: len(problems) == 0}
	for _, p := range problems {
		out.Problems = append(out.Problems, view.ModelProblem{File: p.File, Detail: p.Detail})
	}
	return out, nil
}

// installedView is the model manager's install record in the read model (embed/model imports
// nothing of Pond's, so it keeps its own type).
func installedView(in *model.Installed) view.InstalledModel {
	c := in.Config
	out := view.InstalledModel{ID: in.ID, Source: in.Source, InstalledAt: in.InstalledAt, Dir: in.Dir,
		Files: make([]view.InstalledModelFile, len(in.Files)),
		Config: view.ModelConfig{Name: c.Name, Variant: c.Variant, Source: c.Source, Dimensions: c.Dimensions, MaxTokens: c.MaxTokens,
			Pooling: c.Pooling, Normalize: c.Normalize, QueryPrefix: c.QueryPrefix, PassagePrefix: c.PassagePrefix, BatchSize: c.BatchSize}}
	for i, f := range in.Files {
		out.Files[i] = view.InstalledModelFile{Name: f.Name, SHA256: f.SHA256, Size: f.Size, Trust: string(f.Trust)}
	}
	return out
}
