package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/ipc"
)

func newMCPCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "MCP server on stdio for agents: relays to the running daemon",
		Long: `mcp connects stdin and stdout to the daemon's MCP socket, byte for byte, so an agent can
launch Pond as an MCP server. stdout carries only JSON-RPC; messages go to stderr. It needs
a running daemon (pond daemon); "pond serve --transport stdio" also works without one.

Register it with an agent, e.g.:
  claude mcp add pond -- pond mcp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := resolveDirs()
			if err != nil {
				return err
			}
			return ipc.Bridge(cmd.Context(), ipc.MCPSocket(d.Runtime.Path), os.Stdin, os.Stdout)
		},
	}
}
