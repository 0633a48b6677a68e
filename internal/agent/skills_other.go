//go:build !unix

package agent

import "os/exec"

// ownGroup: without process groups only the script itself is killed on
// Cancel (exec's default).
func ownGroup(*exec.Cmd) {}

// killGroup has nothing more to kill without process groups.
func killGroup(*exec.Cmd) {}
