// Package resume restores a stored session into an agent's native files (same agent: lossless;
// other agent: reconstructed), never overwriting, and names the command that resumes it.
package resume
