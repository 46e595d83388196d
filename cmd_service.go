package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/installer/service"
)

func newServiceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service status|start|stop|restart|logs",
		Short: "Control the daemon's login service that pond install set up",
		Long: `service controls the daemon's login service (pond install sets it up):

  status   installed, running, stale or not installed, and the tray's login entry; "stale"
           means the installed file is not what this pond would write (after an upgrade or a
           moved binary): pond install updates it
  start    start it now
  stop     stop it until your next login (or pond service start)
  restart  stop and start it, e.g. after pond model install
  logs     the daemon's log: journalctl --user -u pond.service on Linux, else the log file
           in the state directory; --follow keeps printing

Examples:
  pond service status --format json
  pond service logs --follow`,
		Args: cobra.NoArgs, // an unknown subcommand is an error, not the help
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var format string
	status := &cobra.Command{
		Use: "status", Short: "Whether the service is installed, running or stale", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, exe, err := serviceManager()
			if err != nil {
				return err
			}
			st, err := m.Status(cmd.Context())
			if err != nil {
				return err
			}
			tray, err := service.TrayAutostart(exe).Status()
			if err != nil {
				return err
			}
			rep := struct {
				Service service.Status          `json:"service"`
				Tray    service.AutostartStatus `json:"tray"`
			}{st, tray}
			return render(cmd.OutOrStdout(), format, rep, func() string {
				var b strings.Builder
				fmt.Fprintf(&b, "service  %-14s %s %s\n", st.State, st.Kind, st.File)
				if st.Detail != "" {
					fmt.Fprintf(&b, "         %s\n", st.Detail)
				}
				trayState := "not enabled"
				switch {
				case tray.Stale:
					trayState = "stale"
				case tray.Enabled:
					trayState = "enabled"
				}
				fmt.Fprintf(&b, "tray     %-14s %s\n", trayState, tray.Where)
				return b.String()
			})
		},
	}
	addFormatFlag(status, &format)
	control := func(verb, short string, f func(*service.Manager) func(cmd *cobra.Command) error) *cobra.Command {
		return &cobra.Command{Use: verb, Short: short, Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				m, _, err := serviceManager()
				if err != nil {
					return err
				}
				if err := f(m)(cmd); errors.Is(err, service.ErrNotInstalled) {
					return &exitError{code: 1, err: err}
				} else if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", verb, m.File())
				return nil
			}}
	}
	var lines int
	var follow bool
	logs := &cobra.Command{
		Use: "logs", Short: "Print the daemon's log", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, _, err := serviceManager()
			if err != nil {
				return err
			}
			return m.Logs(cmd.Context(), cmd.OutOrStdout(), lines, follow)
		},
	}
	logs.Flags().IntVarP(&lines, "lines", "n", 100, "how many of the last lines")
	logs.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines until Ctrl-C")
	cmd.AddCommand(status,
		control("start", "Start the daemon's service now", func(m *service.Manager) func(*cobra.Command) error {
			return func(c *cobra.Command) error { return m.Start(c.Context()) }
		}),
		control("stop", "Stop it until the next login", func(m *service.Manager) func(*cobra.Command) error {
			return func(c *cobra.Command) error { return m.Stop(c.Context()) }
		}),
		control("restart", "Stop and start it", func(m *service.Manager) func(*cobra.Command) error {
			return func(c *cobra.Command) error { return m.Restart(c.Context()) }
		}),
		logs, newServiceRunCmd())
	return cmd
}

// newServiceRunCmd is what the Windows logon task and the XDG autostart entry run: the daemon,
// with its log sent to a file and, on Windows, no console window.
func newServiceRunCmd() *cobra.Command {
	return &cobra.Command{
		Use: "run", Short: "Run the daemon as its login service does (log to a file, no console window)",
		Hidden: true, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			daemonCmd, _, err := cmd.Root().Find([]string{"daemon"})
			if err != nil || daemonCmd.RunE == nil {
				return errors.New("this pond has no daemon command")
			}
			done, err := service.PrepareRun(d)
			if err != nil {
				return err
			}
			defer done()
			daemonCmd.SetContext(cmd.Context())
			return daemonCmd.RunE(daemonCmd, nil)
		},
	}
}

func serviceManager() (*service.Manager, string, error) {
	exe, err := service.Executable()
	if err != nil {
		return nil, "", err
	}
	d, err := resolveDirs()
	if err != nil {
		return nil, "", err
	}
	m, err := service.New(service.Options{Exe: exe, Dirs: d})
	return m, exe, err
}
