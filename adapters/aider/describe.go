package aider

import "github.com/pondhq/pond/adapters"

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root: "a folder searched for .aider.chat.history.md files, five folders deep (the home folder; with it, the projects other agents' sessions name and AIDER_CHAT_HISTORY_FILE)",
		// The history belongs to the project, which Pond does not own: a restore is a file of
		// its own that Aider is pointed at.
		Restore: "a new history file in ROOT/aider/<session>/ (Pond's exports folder for a restore into the real root); the command starts aider in the project with --chat-history-file on it and --restore-chat-history",
		Fixture: adapters.Fixture{Dir: "adapters/aider/testdata/home"},
		Integration: adapters.Integration{
			None: "Aider has no MCP client and no skills folder: search its sessions through pond or another agent",
		},
	}
}
