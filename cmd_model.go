package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/embed/model"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store"
)

// modelsDir is where installed embedding models live: <data dir>/models.
func modelsDir(d paths.Dirs) string { return filepath.Join(d.Data.Path, "models") }

// activeModel is the installed model the config turns on, or an error that says what to do.
func activeModel(d paths.Dirs, cfg *config.Config) (*model.Installed, error) {
	if !cfg.Embeddings.Enabled || cfg.Embeddings.Model == "" {
		return nil, &exitError{code: 1, err: errors.New("semantic search is off: run `pond model install` to download the embedding model and turn it on")}
	}
	return model.Load(modelsDir(d), cfg.Embeddings.Model)
}

// modelStatusText is `pond model status` for people.
func modelStatusText(s *apitype.ModelStatus) string {
	var b strings.Builder
	switch {
	case s.Enabled:
		fmt.Fprintf(&b, "semantic search: on, model %s\n", s.Model)
	default:
		b.WriteString("semantic search: off (turn it on with `pond model install`)\n")
	}
	if len(s.Installed) == 0 {
		b.WriteString("installed models: none\n")
	}
	for _, in := range s.Installed {
		mark := " "
		if in.ID == s.Model {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s (%s, %d dims) from %s\n    %s\n", mark, in.ID, in.Config.Variant, in.Config.Dimensions, in.Source, in.Dir)
	}
	if e := s.Embedded; e != nil {
		fmt.Fprintf(&b, "embedded: %d of %d searchable messages by %s", e.ThisModel, e.Searchable, e.Model)
		if e.Other > 0 {
			fmt.Fprintf(&b, ", %d by other models (`pond optimize --force-embed` re-embeds them)", e.Other)
		}
		if e.ThisModel+e.Other < e.Searchable {
			b.WriteString("; `pond optimize --embed` embeds the rest")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func newModelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Install, check and turn off the embedding model for semantic search",
		Long: `Semantic search embeds every message with a local model (by default
intfloat/multilingual-e5-small, int8, about 120 MB, 100 languages) that runs on ONNX Runtime on
this machine. Nothing is downloaded until you run ` + "`pond model install`" + `, and installing is what
turns semantic search on (a running daemon switches to the model at once). Models live in <data dir>/models/<name>@<revision>/, each file checked
against its sha256.

  pond model status            what is installed and how much of the archive is embedded
  pond model install           download the default model from Hugging Face and turn it on
  pond model install --from D  install a model from a local folder (no network)
  pond model verify            re-check every installed file and that the model loads
  pond model disable           turn semantic search off (--remove also deletes the files)`,
	}
	cmd.AddCommand(newModelStatusCmd(), newModelInstallCmd(), newModelVerifyCmd(), newModelDisableCmd())
	return cmd
}

func newModelStatusCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether semantic search is on, the installed models and embedding progress",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The archive is opened here only for the embedding counts of a model that is on.
			openIfOn := func() (*store.Store, error) {
				_, cfg, _, err := loadConfig()
				if err != nil || !cfg.Embeddings.Enabled || cfg.Embeddings.Model == "" {
					return nil, err
				}
				return openStore(cmd.Context(), "pond model status")
			}
			st, err := serviceCall(cmd.Context(), openIfOn, func(api ipc.API) (*apitype.ModelStatus, error) { return api.Model(cmd.Context()) })
			if err != nil {
				return cliError(err)
			}
			return render(cmd.OutOrStdout(), format, st, func() string { return modelStatusText(st) })
		},
	}
	addFormatFlag(cmd, &format)
	return cmd
}

// downloadProgress draws one line per file on a terminal.
func downloadProgress() func(string, int64, int64) {
	if !isTerminal(os.Stderr) {
		return nil
	}
	start := time.Now()
	return func(name string, done, total int64) {
		mb := func(n int64) float64 { return float64(n) / (1 << 20) }
		rate := mb(done) / max(time.Since(start).Seconds(), 0.001)
		if total > 0 {
			pct := float64(done) / float64(total)
			bar := strings.Repeat("#", int(pct*30)) + strings.Repeat(".", 30-int(pct*30))
			fmt.Fprintf(os.Stderr, "\r%-16s [%s] %6.1f/%.1f MB %5.1f MB/s", name, bar, mb(done), mb(total), rate)
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
			return
		}
		fmt.Fprintf(os.Stderr, "\r%-16s %6.1f MB %5.1f MB/s", name, mb(done), rate)
	}
}

func newModelInstallCmd() *cobra.Command {
	var from, name, variant, baseURL, format string
	cmd := &cobra.Command{
		Use:   "install [NAME]",
		Short: "Download (or copy with --from) an embedding model and turn semantic search on",
		Long: `install fetches NAME (default ` + model.Default.Name + `) at the revision Pond pins, from the
Hugging Face resolve URLs, checks every file against its sha256 and that the model loads, then turns
semantic search on. An interrupted download resumes where it stopped when you run install again.
Files whose hash Pond could not pin are trusted on first download and checked from then on
(` + "`pond model verify`" + `).

--from DIR installs from a local folder instead (no network): it must hold model.onnx and
tokenizer.json, plus pond-model.json or the model's Hugging Face config.json (then --name names it
unless config.json does).

After installing, ` + "`pond optimize --embed`" + ` embeds what the archive already holds (a running
daemon does it by itself once it uses the model).

Examples:
  pond model install
  pond model install --variant fp32
  pond model install --from ~/models/multilingual-e5-small --name intfloat/multilingual-e5-small
  pond model install --base-url https://hf-mirror.example    (a mirror with Hugging Face's URL layout)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, cfg, _, err := loadConfig()
			if err != nil {
				return err
			}
			if err := daemon.InitONNX(d, cfg); err != nil {
				return err
			}
			inst := &model.Installer{ModelsDir: modelsDir(d), BaseURL: baseURL, Check: daemon.CheckModel, Progress: downloadProgress()}
			var in *model.Installed
			if from != "" {
				if len(args) > 0 {
					return &exitError{code: 2, err: errors.New("give either NAME or --from DIR, not both")}
				}
				in, err = inst.InstallFrom(ctx, from, name)
			} else {
				want := model.Default.Name
				if len(args) == 1 {
					want = args[0]
				}
				spec, ok := model.Find(want, variant)
				if !ok {
					var known []string
					for _, s := range model.Known {
						known = append(known, s.Name+" --variant "+s.Config.Variant)
					}
					return &exitError{code: 2, err: fmt.Errorf("no known model %s %s (known: %s); install others with --from DIR", want, variant, strings.Join(known, ", "))}
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "downloading %s (%s) at revision %s\n", spec.Name, spec.Config.Variant, spec.Revision)
				in, err = inst.Download(ctx, spec)
			}
			if err != nil {
				return err
			}
			// The files are in place; the config, and the daemon's search, switch to them.
			st, err := writerFor(ctx).SetModel(ctx, &apitype.ModelRequest{Action: "enable", Model: in.ID})
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, in, func() string {
				var b strings.Builder
				fmt.Fprintf(&b, "installed %s in %s\n", in.ID, in.Dir)
				for _, f := range in.Files {
					fmt.Fprintf(&b, "  %-24s %s  %s\n", f.Name, f.SHA256, f.Trust)
				}
				fmt.Fprintf(&b, "semantic search is on (%s)\nnext: pond optimize --embed   (embeds the messages already archived)\n", st.ConfigFile)
				return b.String()
			})
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "install from this local folder instead of downloading")
	cmd.Flags().StringVar(&name, "name", "", "with --from: the model's name, e.g. intfloat/multilingual-e5-small")
	cmd.Flags().StringVar(&variant, "variant", "", "which published file: int8 (default, smaller and faster) or fp32")
	cmd.Flags().StringVar(&baseURL, "base-url", model.HuggingFace, "download origin with Hugging Face's URL layout")
	addFormatFlag(cmd, &format)
	return cmd
}

func newModelVerifyCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "verify [NAME@REVISION]",
		Short: "Re-hash an installed model's files and check that it loads",
		Long: `verify re-computes the sha256 of every file of the model (the configured one unless named) and
compares it with what was recorded at install, then loads the model and embeds a text. It exits 1
when anything is wrong; ` + "`pond model install`" + ` then repairs the model.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := &apitype.ModelVerifyRequest{}
			if len(args) == 1 {
				req.Model = args[0]
			}
			rep, err := serviceCall(cmd.Context(), nil, func(api ipc.API) (*apitype.ModelVerify, error) { return api.VerifyModel(cmd.Context(), req) })
			if err != nil {
				return cliError(err)
			}
			if err := render(cmd.OutOrStdout(), format, rep, func() string {
				if rep.OK {
					return fmt.Sprintf("%s: every file matches its recorded sha256 and the model loads\n", rep.Model)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "%s in %s is damaged:\n", rep.Model, rep.Dir)
				for _, p := range rep.Problems {
					fmt.Fprintf(&b, "  %s: %s\n", p.File, p.Detail)
				}
				b.WriteString("reinstall it with `pond model install` (or --from DIR)\n")
				return b.String()
			}); err != nil {
				return err
			}
			if !rep.OK {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	addFormatFlag(cmd, &format)
	return cmd
}

func newModelDisableCmd() *cobra.Command {
	var remove bool
	cmd := &cobra.Command{
		Use:   "disable",
		Short: "Turn semantic search off (--remove also deletes the model's files)",
		Long: `disable turns semantic search off: nothing is embedded any more and vector search requests are
refused. Vectors already stored stay in the archive, so turning it back on with
` + "`pond model install`" + ` needs no re-embedding. --remove also deletes the configured model's files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := writerFor(cmd.Context()).SetModel(cmd.Context(), &apitype.ModelRequest{Action: "disable", Remove: remove})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "semantic search is off")
			if st.Removed != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", st.Removed)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "also delete the model's files")
	return cmd
}
