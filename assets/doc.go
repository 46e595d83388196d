// Package assets embeds the files Pond ships inside its binary: icons, the recall skill text and
// the prompt guidelines for agents.
package assets

import _ "embed"

// RecallSkill is Pond's recall skill (skills/pond-recall/SKILL.md), which the installer puts in
// the skills folder of agents that have one: when to search the archive, how to read what it
// finds.
//
//go:embed skills/pond-recall/SKILL.md
var RecallSkill []byte
