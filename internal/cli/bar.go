package cli

import "strings"

// barWidth is the width of every progress bar of the command line.
const barWidth = 24

// clearLine returns the cursor to the start of a terminal's line and erases
// it: a progress line is redrawn over the one before.
const clearLine = "\r\033[K"

// barLine is a progress line redrawn in place on a terminal (aite eval,
// aite codex build, the embedding of a book): the bar of done out of total
// followed by text.
func barLine(done, total int, text string) string {
	filled := barWidth * min(max(done, 0), total) / max(total, 1)
	return clearLine + strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled) + " " + text
}
