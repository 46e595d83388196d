package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store/objstore"
)

func newStorageCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "storage", Short: "Where the archive lives: check a location, switch to one",
		Long: "The archive's Lance tables live in the data directory, or anywhere else: a path, or an S3-compatible\n" +
			"object store (s3://bucket/prefix, s3+http(s)://host:port/bucket/prefix) that several machines can\n" +
			"share, each capturing into it and each searching the union. The SQLite mirror search reads stays on\n" +
			"each machine. For an object store, the files Lance never changes are kept in a disk cache under the\n" +
			"cache directory, bounded by [storage] cache_mib in the config (default 1024; -1 turns it off);\n" +
			"pond status shows what it holds.",
		Example: "  pond storage check s3://team-bucket/pond\n  pond storage use s3://team-bucket/pond\n  pond copy --from @ --to s3://team-bucket/pond   (bring the current archive along)"}
	var format string
	check := &cobra.Command{
		Use:   "check [URL]",
		Short: "Probe a storage location (default: the current one): parse, credentials, conditional put, read-back, delete",
		Long: "Probe a storage location: a path, s3://bucket/prefix or s3+http(s)://host:port/bucket/prefix.\n" +
			"Credentials come from the AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION).\n" +
			"Exit codes: 0 ok, 1 I/O, 2 the location does not parse, 3 no credentials, 4 credentials refused,\n" +
			"5 the server does not honour conditional puts (Lance's commits need them).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := storageArg(args)
			if err != nil {
				return err
			}
			rep := objstore.Check(cmd.Context(), raw, nil)
			if err := render(cmd.OutOrStdout(), format, rep, func() string { return storageReport(rep) }); err != nil {
				return err
			}
			if rep.Exit != 0 {
				return &exitError{code: rep.Exit}
			}
			return nil
		},
	}
	addFormatFlag(check, &format)
	use := &cobra.Command{
		Use:   "use URL|local",
		Short: "Probe a location, then make it the archive's ([storage] path in the config); copies nothing",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			raw := strings.TrimSpace(args[0])
			if raw != "local" && raw != "default" {
				rep := objstore.Check(cmd.Context(), raw, nil)
				if rep.Exit != 0 {
					fmt.Fprint(cmd.ErrOrStderr(), storageReport(rep))
					return &exitError{code: rep.Exit, err: errors.New("not switched: the location failed its check")}
				}
				// Kept in the form Parse gives back: absolute for a path, so the daemon reads the
				// same place whatever its working directory.
				loc, _ := objstore.Parse(raw)
				raw = loc.String()
			}
			cfg, _, err := config.Load(d.ConfigFile.Path)
			if err != nil {
				return err
			}
			// The disk cache's bound, when set, stays whatever the location.
			var cacheMiB int64
			if cfg.Storage != nil {
				cacheMiB = cfg.Storage.CacheMiB
			}
			switch {
			case raw != "local" && raw != "default":
				cfg.Storage = &config.Storage{Path: raw, CacheMiB: cacheMiB}
			case cacheMiB != 0:
				cfg.Storage = &config.Storage{CacheMiB: cacheMiB}
			default:
				cfg.Storage = nil
			}
			if err := cfg.Save(d.ConfigFile.Path); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if cfg.StoragePath() == "" {
				fmt.Fprintf(out, "storage: the data directory's archive (%s)\n", d.Data.Path)
			} else {
				fmt.Fprintf(out, "storage: %s\n", raw)
				if mib := cfg.StorageCacheMiB(); mib > 0 {
					fmt.Fprintf(out, "The files Lance never changes (manifests, indexes, data files) are kept in a disk cache of up to %d MiB under %s ([storage] cache_mib).\n",
						mib, filepath.Join(d.Cache.Path, "lance"))
				}
			}
			fmt.Fprintln(out, "Nothing was copied; the mirror stays in the data directory and is rebuilt from the new archive when it differs.")
			if d.Storage.Path != "" {
				fmt.Fprintf(out, "Note: --storage-path or %s overrides this setting here.\n", paths.EnvStorage)
			}
			if c, err := ipc.Connect(cmd.Context(), ipc.APISocket(d.Runtime.Path)); err == nil {
				c.Close()
				fmt.Fprintln(out, "A Pond daemon is running on the old location: restart it to switch (pond service restart).")
			}
			return nil
		},
	}
	cmd.AddCommand(check, use)
	return cmd
}

// storageArg is check's location: the argument, else the current one.
func storageArg(args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	d, err := resolveDirs()
	if err != nil {
		return "", err
	}
	raw, err := daemon.StoragePath(d)
	if err != nil {
		return "", err
	}
	if raw == "" {
		raw = paths.LanceDir(d.Data.Path)
	}
	return raw, nil
}

func storageReport(rep objstore.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "storage check %s\n", rep.Location)
	for _, s := range rep.Steps {
		mark := "ok  "
		if !s.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %-16s %s\n", mark, s.Name, s.Detail)
	}
	if rep.Exit == 0 {
		b.WriteString("usable as Pond's storage\n")
	}
	return b.String()
}
