package eval

import (
	"fmt"
	"strconv"
	"strings"
)

// The prompts are English whatever the book's language (the agents answer
// in the language they are asked in); names and quoted text are the
// book's own, in «guillemets». Each prompt says what counts and how to
// answer, so a model is judged on the book, not on guessing the format.

const (
	headingsRule = "Headings do not count; every other block (paragraph, list item, quote, …) does."
	formsRule    = "in any form of the name"
	answerItem   = "End your reply with one line `ANSWER: <pointer>` naming that item, or `ANSWER: none` if you could not establish it for certain."
	answerList   = "End your reply with one line `ANSWER: <pointer>, <pointer>, …` listing them all, or `ANSWER: none` if you could not establish the list for certain."
	answerCount  = "End your reply with one line `ANSWER: <number>`, or `ANSWER: none` if you could not establish it for certain."
	answerDone   = "When you are done, end your reply with one line `ANSWER: done`, or `ANSWER: none` if you could not do it."
)

// ordinal spells 1 as "1st", 2 as "2nd", ….
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func ordinalPrompt(f Family, p Params) string {
	which := "first"
	switch f {
	case Nth:
		which = ordinal(p.N)
	case Last:
		which = "last"
	}
	return fmt.Sprintf("Which is the %s paragraph of the book that mentions «%s» (%s)? %s\n%s",
		which, p.Name, formsRule, headingsRule, answerItem)
}

func countPrompt(p Params) string {
	return fmt.Sprintf("How many paragraphs of the chapter «%s» (heading %s, up to the next heading of its level) mention «%s» (%s)? "+
		"Count paragraphs, not occurrences: a paragraph that mentions it twice counts once. %s\n%s",
		p.ChapterTitle, p.Chapter, p.Name, formsRule, headingsRule, answerCount)
}

func chapterPrompt(p Params, example string) string {
	return fmt.Sprintf("In which chapter is «%s» (%s) mentioned for the first time? The chapters are the level-%d headings "+
		"(such as «%s»); a chapter runs up to the next heading of its level. Mentions in headings do not count.\n"+
		"End your reply with one line `ANSWER: <pointer of the chapter's heading>`, or `ANSWER: none` if you could not establish it for certain.",
		p.Name, formsRule, p.ChapterLevel, example)
}

func collectPrompt(p Params) string {
	return fmt.Sprintf("List every paragraph of the book that mentions both «%s» and «%s» (any form of each name). %s\n%s",
		p.Name, p.Other, headingsRule, answerList)
}

func walkGoal(p Params) string {
	return fmt.Sprintf("a paragraph that mentions «%s» as well (any form of the name); every paragraph of this walk mentions «%s»",
		p.Other, p.Name)
}

func insertPrompt(p Params) string {
	return fmt.Sprintf("Insert a new paragraph right after the %s paragraph of the book that mentions «%s» (%s). %s "+
		"The new paragraph's text must be exactly:\n\n%s\n\nChange nothing else. %s",
		ordinal(p.N), p.Name, formsRule, headingsRule, p.Text, answerDone)
}

func replacePrompt(p Params) string {
	return fmt.Sprintf("In the chapter «%s» (heading %s), replace the last sentence of the chapter's first paragraph with exactly this sentence:\n\n%s\n\n"+
		"Keep the rest of the paragraph exactly as it is and change nothing else. %s",
		p.ChapterTitle, p.Chapter, p.Text, answerDone)
}

func relayPrompt(p Params, inverse bool) string {
	var s string
	switch {
	case p.Op == StepWord && !inverse:
		s = fmt.Sprintf("In the paragraph %s, replace the word «%s» with «%s».", p.Target, p.Word, p.Replacement)
	case p.Op == StepWord:
		s = fmt.Sprintf("In the paragraph %s, replace the word «%s» with «%s».", p.Target, p.Replacement, p.Word)
	case p.Op == StepSentence && !inverse:
		s = fmt.Sprintf("In the paragraph %s, replace the last sentence with exactly this sentence:\n\n%s\n\n", p.Target, p.Text)
	case p.Op == StepSentence:
		s = fmt.Sprintf("In the paragraph %s, replace the last sentence («%s») with exactly this sentence:\n\n%s\n\n", p.Target, p.Text, p.Original)
	case !inverse:
		s = fmt.Sprintf("Insert a new paragraph right after the paragraph %s. Its text must be exactly:\n\n%s\n\n", p.Target, p.Text)
	default:
		s = fmt.Sprintf("Delete the paragraph that follows the paragraph %s and reads «%s».", p.Target, p.Text)
	}
	if !strings.HasSuffix(s, "\n") {
		s += " "
	}
	return s + "Change nothing else. " + answerDone
}
