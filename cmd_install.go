package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/installer"
	"github.com/pondhq/pond/installer/service"
)

func newInstallCmd() *cobra.Command {
	var noTray, noMCP, dryRun bool
	var agents []string
	var format string
	cmd := &cobra.Command{
		Use:   "install [--no-tray] [--no-mcp] [--agents LIST] [--dry-run]",
		Short: "Run Pond at login (the daemon as your user's service, the tray) and give your agents its MCP server",
		Long: `install makes Pond run by itself for your user, without root or an administrator. Each step
says what it did:

  service  the daemon (pond daemon) as a login service, enabled and started now
             Linux    a systemd user unit, ~/.config/systemd/user/pond.service (restarted on
                      failure); without systemd, an XDG autostart entry started with your
                      desktop session (install says so)
             macOS    a LaunchAgent, ~/Library/LaunchAgents/io.pond.daemon.plist, loaded into
                      your login session with launchctl bootstrap
             Windows  a Task Scheduler task run at your logon ("Pond Daemon"), with no window
  tray     the tray app at login (an XDG autostart entry, the LaunchAgent io.pond.tray, or the
           "Pond" value under HKCU\Software\Microsoft\Windows\CurrentVersion\Run); skipped
           with --no-tray, and when this pond has no tray built in
  agents   Pond's MCP server, a stdio server named pond running "<this binary> mcp", at user
           scope in every agent found here (its command on PATH, its config or its folder):
             claude-code  claude mcp add --scope user, else ~/.claude.json (CLAUDE_CONFIG_DIR)
             codex-cli    codex mcp add, else $CODEX_HOME/config.toml (~/.codex)
             copilot-cli  copilot mcp add, else ~/.copilot/mcp-config.json (COPILOT_HOME)
             cursor       ~/.cursor/mcp.json (the IDE's and cursor-agent's)
             gemini-cli   gemini mcp add -s user, else ~/.gemini/settings.json
             opencode     ~/.config/opencode/opencode.json[c] (XDG_CONFIG_HOME), key "mcp"
             qwen-code    qwen mcp add --scope user, else ~/.qwen/settings.json (QWEN_HOME)
             cline        ~/.cline/data/settings/cline_mcp_settings.json (CLINE_DATA_DIR)
             roo-code     settings/mcp_settings.json in Roo Code's folder of the editor's
                          globalStorage (~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline)
             kilo         ~/.config/kilo/kilo.json[c] (XDG_CONFIG_HOME), key "mcp"
           A file is edited in place, keeping your entries, comments and line endings, with a
           .bak beside it; a file Pond cannot read is reported and left alone. Claude Code,
           Copilot CLI, Cursor, Gemini CLI and Qwen Code also get Pond's recall skill
           (skills/pond-recall). Pi gets Pond's extension instead, pi-pond, in
           ~/.pi/agent/extensions/pond (PI_CODING_AGENT_DIR): its recall tools use the
           daemon's socket. OpenClaw gets Pond's plugin, in a later pond. --agents
           claude-code,codex-cli to choose (registered even before the agent's first run),
           --no-mcp to skip

Everything points at this binary's absolute path, symlinks resolved. Running install again
changes only what differs, so it is also how to update the service after an upgrade or after
moving the binary: pond service status says "stale" when that is due. Locations you chose
(--data-dir and the other location flags, or POND_DATA_DIR and the other variables) are
written into the service's command line, so the daemon keeps the archive this command sees.

On Linux a user service runs while you are logged in. On a machine you reach over SSH, keep it
running after you log out with loginctl enable-linger; install tells you when that applies.

pond service status|start|stop|restart|logs control the service; pond uninstall removes it.

Examples:
  pond install --dry-run      show what would be written and run, change nothing
  pond install
  pond install --no-tray --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			o, err := installerOptions(cmd, dryRun)
			if err != nil {
				return err
			}
			o.Tray, o.MCP, o.Agents = !noTray, !noMCP, agents
			return printReport(cmd, format, "install", installer.Install(cmd.Context(), o))
		},
	}
	f := cmd.Flags()
	f.BoolVar(&noTray, "no-tray", false, "do not start the tray at login")
	f.BoolVar(&noMCP, "no-mcp", false, "do not register Pond's MCP server with any agent")
	f.StringSliceVar(&agents, "agents", nil, "register the MCP server only with these agents (comma-separated adapter names)")
	f.BoolVar(&dryRun, "dry-run", false, "report what would be written and run; change nothing")
	addFormatFlag(cmd, &format)
	return cmd
}

// printReport prints what install or uninstall did, step by step, and turns a failed step into
// exit code 1.
func printReport(cmd *cobra.Command, format, verb string, rep installer.Report) error {
	if err := render(cmd.OutOrStdout(), format, rep, func() string { return rep.Text(verb) }); err != nil {
		return err
	}
	if err := rep.Err(); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("%s: %w", verb, err)}
	}
	return nil
}

// checkFormat refuses a bad --format before anything is installed or removed (render would
// only refuse it after).
func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return &exitError{code: 2, err: fmt.Errorf("unknown --format %q (want text or json)", format)}
	}
	return nil
}

// installerOptions are what install and uninstall share: this binary, the locations, and
// whether this pond has a tray to start.
func installerOptions(cmd *cobra.Command, dryRun bool) (installer.Options, error) {
	exe, err := service.Executable()
	if err != nil {
		return installer.Options{}, err
	}
	d, err := resolveDirs()
	if err != nil {
		return installer.Options{}, err
	}
	o := installer.Options{Exe: exe, Dirs: d, DryRun: dryRun}
	if c, _, err := cmd.Root().Find([]string{"tray"}); !desktopBuilt || err != nil || c == cmd.Root() {
		o.NoTrayWhy = "this pond has no tray built in (a headless build, or one from before the desktop app): nothing to start at login"
	}
	return o, nil
}
