// Package assets embeds the files Pond ships inside its binary: icons, the recall skill text and
// the prompt guidelines for agents.
package assets
