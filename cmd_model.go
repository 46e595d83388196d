package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/embed/model"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

// modelsDir is where installed embedding models live: <data dir>/models.
func modelsDir(d paths.Dirs) string { return paths.ModelsDir(d.Data.Path) }

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
			// Without a daemon the archive is opened only for the embedding counts of a model
			// that is on.
			_, cfg, _, err := loadConfig()
			if err != nil {
				return err
			}
			on := cfg.Embeddings.Enabled && cfg.Embeddings.Model != ""
			api, closeAPI, err := archive(cmd.Context(), "pond model status", daemon.LocalOptions{Archive: on})
			if err != nil {
				return err
			}
			defer closeAPI()
			st, err := api.Model(cmd.Context())
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, st, func() string { return present.ModelStatus(st) })
		},
	}
	addFormatFlag(cmd, &format)
	return cmd
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
			st, err := setModel(ctx, &apitype.ModelRequest{Action: "enable", Model: in.ID})
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
			api, closeAPI, err := archive(cmd.Context(), "pond model verify", daemon.LocalOptions{})
			if err != nil {
				return err
			}
			defer closeAPI()
			rep, err := api.VerifyModel(cmd.Context(), req)
			if err != nil {
				return err
			}
			if err := render(cmd.OutOrStdout(), format, rep, func() string { return present.ModelVerify(rep) }); err != nil {
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
			st, err := setModel(cmd.Context(), &apitype.ModelRequest{Action: "disable", Remove: remove})
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

// setModel turns semantic search on or off: the daemon's search switches at once.
func setModel(ctx context.Context, req *apitype.ModelRequest) (*view.ModelStatus, error) {
	api, closeAPI, err := archive(ctx, "pond model", daemon.LocalOptions{})
	if err != nil {
		return nil, err
	}
	defer closeAPI()
	return api.SetModel(ctx, req)
}
