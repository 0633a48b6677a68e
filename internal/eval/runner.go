package eval

import (
	"context"
	"io"

	"github.com/aitexteditor/aite/internal/llm"
)

// Runner runs one command of an evaluation with the model under test on a
// copy of the book: the one place where the evaluation meets the agents.
// internal/cli implements it with the code behind `aite ask` and `aite
// navigate`; when the agents move to another runtime, only that
// implementation changes.
//
// Run returns an error only when the evaluation cannot go on (the book copy
// cannot be read or written, the model cannot be reached or refuses the
// credentials); everything the model does wrong is in the Outcome.
type Runner interface {
	Run(ctx context.Context, job Job) (Outcome, error)
}

// Job is one command on a book copy.
type Job struct {
	// Book is the path of the copy (with its own state directory beside
	// it); the runner may read and write it.
	Book string
	// Prompt is the command for the command agent (`aite ask`), when Walk
	// is nil.
	Prompt string
	// Write asks for the edits of a run that finished to be written to Book
	// (`aite ask --yes`); otherwise nothing is written (`--dry-run`).
	Write bool
	// Walk, when set, runs the cursor agent on its own (`aite navigate`).
	Walk *WalkSpec
	// Log receives what the run shows a person (tool calls, batches, edits).
	Log io.Writer
}

// Outcome is what a command ended with, as a user would see it.
type Outcome struct {
	// Answer is the command agent's reply.
	Answer string
	// Pointers are the cursor agent's answer: the item it picked, or every
	// item it collected.
	Pointers []string
	// Done says the agent reports a finished run: the command agent ended
	// without an error within its steps; the cursor agent reports success
	// (not incomplete, something found).
	Done bool
	// Failure says why a run is not Done.
	Failure string
	// Edits counts the edits the run applied; Written says whether they
	// were written to the book.
	Edits   int
	Written bool
	// Usage and Calls count every model call of the run (the cursor
	// agent's included); EstimatedCalls counts the calls whose usage the
	// provider did not report and that were estimated (llm.EstimateTokens).
	Usage          llm.Usage
	Calls          int
	EstimatedCalls int
}
