package builtins

import (
	"context"
	_ "embed"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/tool"
)

// Names of the demo backend tools.
const (
	ToolCurrentTime = "current_time"
	ToolWordCount   = "word_count"
)

var (
	//go:embed current_time.md
	currentTimeDoc string
	//go:embed word_count.md
	wordCountDoc string
)

// Backends returns the Go demo backend tools (current_time, word_count).
func Backends() []tool.Tool { return newBackends(time.Now) }

func newBackends(clock func() time.Time) []tool.Tool {
	return []tool.Tool{currentTime(clock), wordCount()}
}

type timeParams struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"an IANA time zone such as Europe/Berlin; default UTC"`
}

type timeResult struct {
	Time     string `json:"time"`
	Timezone string `json:"timezone"`
	Weekday  string `json:"weekday"`
	UnixMs   int64  `json:"unixMs"`
}

func currentTime(clock func() time.Time) tool.Tool {
	return tool.Must(ToolCurrentTime, currentTimeDoc, func(_ context.Context, p timeParams) (tool.Result, error) {
		zone := strings.TrimSpace(p.Timezone)
		if zone == "" {
			zone = "UTC"
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return tool.Errorf("invalid_arguments", "unknown time zone %q: use an IANA name such as Europe/Berlin, or leave timezone out for UTC", zone), nil
		}
		now := clock().In(loc)
		return jsonResult(timeResult{Time: now.Format(time.RFC3339), Timezone: zone, Weekday: now.Weekday().String(),
			UnixMs: now.UnixMilli()}), nil
	})
}

type countParams struct {
	Text string `json:"text" jsonschema:"the text to count"`
}

// Counts are the figures of word_count.
type Counts struct {
	Words      int `json:"words"`
	Characters int `json:"characters"`
	Lines      int `json:"lines"`
	Sentences  int `json:"sentences"`
}

func wordCount() tool.Tool {
	return tool.Must(ToolWordCount, wordCountDoc, func(_ context.Context, p countParams) (tool.Result, error) {
		return jsonResult(Count(p.Text)), nil
	})
}

// Count counts the words (runs of letters and digits), characters, lines
// and sentences of text.
func Count(text string) Counts {
	c := Counts{Characters: utf8.RuneCountInString(text)}
	if text != "" {
		c.Lines = strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
	}
	inWord, inSentence := false, false
	for _, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && !inWord {
			c.Words++
		}
		inWord = word || (inWord && (r == '-' || r == '\'' || r == '’'))
		switch {
		case strings.ContainsRune(".!?…", r):
			if inSentence {
				c.Sentences++
			}
			inSentence = false
		case word:
			inSentence = true
		}
	}
	if inSentence {
		c.Sentences++
	}
	return c
}
