package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"iter"
	"strings"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// DefaultMaxSteps is Config.MaxSteps when it is left 0.
const DefaultMaxSteps = 12

// Config describes an agent for a run.
type Config struct {
	Provider llm.Provider
	Model    string
	System   string
	Tools    *tool.Registry
	// MaxSteps bounds the model turns with tools (default DefaultMaxSteps); after them a
	// final turn without tools must answer.
	MaxSteps int
	// MaxToolCalls bounds the tool calls of a run (default 60).
	MaxToolCalls int
	ToolChoice   llm.ToolChoiceMode
	Temperature  *float64
	MaxTokens    int
	// NewID makes run and tool IDs (random when nil).
	NewID func(prefix string) string
}

type phase int

const (
	phaseModel phase = iota
	phaseTools
	phaseFinal
	phaseEnded
)

// run is the state of one run.
type run struct {
	cfg     Config
	id      string
	history []llm.Message // earlier turns (chat memory)
	msgs    []llm.Message // this run: user input, assistant turns, tool results
	phase   phase
	step    int
	// outOfSteps: the turns with tools ran out (see Event.OutOfSteps)
	outOfSteps bool
	calls      []llm.ToolCall // pending calls of the last turn
	toolUsed   int
	usage      llm.Usage
	answer     string
	ending     Ending
	err        *ErrorInfo
	yield      func(Event) bool
	stopped    bool // the consumer stopped reading
	cancel     context.CancelFunc
}

// Run streams one run: the history (earlier turns of the conversation) and
// the user's input go to the model, tools are called, and the events come
// out as they happen. The last event is run.complete or run.error. Stopping
// the iteration cancels the run.
func (c Config) Run(ctx context.Context, history []llm.Message, input string) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r := &run{cfg: c.withDefaults(), history: history, yield: yield, cancel: cancel}
		r.id = r.cfg.NewID("run")
		r.msgs = []llm.Message{{Role: llm.RoleUser, Content: input}}
		r.loop(ctx)
	}
}

func (c Config) withDefaults() Config {
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.MaxToolCalls == 0 {
		c.MaxToolCalls = 60
	}
	if c.ToolChoice == "" {
		c.ToolChoice = llm.ToolChoiceAuto
	}
	if c.NewID == nil {
		c.NewID = randomID
	}
	return c
}

func randomID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// emit sends an event; when the consumer stops, the run is canceled.
func (r *run) emit(e Event) {
	if r.stopped {
		return
	}
	e.RunID = r.id
	if e.Step == 0 {
		e.Step = r.step
	}
	if !r.yield(e) {
		r.stopped = true
		r.cancel()
	}
}

// loop is the state machine.
func (r *run) loop(ctx context.Context) {
	r.emit(Event{Type: RunStart})
	for r.phase != phaseEnded {
		switch r.phase {
		case phaseModel:
			r.modelTurn(ctx, true)
		case phaseTools:
			r.execute(ctx)
		case phaseFinal:
			r.modelTurn(ctx, false)
		}
	}
	total := r.usage
	if r.ending == Done {
		r.emit(Event{Type: RunComplete, Ending: Done, Answer: r.answer, Total: &total, OutOfSteps: r.outOfSteps})
		return
	}
	r.emit(Event{Type: RunError, Ending: r.ending, Error: r.err, Answer: r.answer, Total: &total, OutOfSteps: r.outOfSteps})
}

// end stops the machine with an ending.
func (r *run) end(e Ending, code, msg string, retriable bool) {
	r.phase, r.ending = phaseEnded, e
	if e != Done {
		r.err = &ErrorInfo{Code: code, Message: msg, Retriable: retriable}
	}
}

// fail ends the run on an error from the model or a tool.
func (r *run) fail(ctx context.Context, err error) {
	if ctx.Err() != nil || llm.IsKind(err, llm.Canceled) {
		r.end(Canceled, CodeCanceled, "the run was canceled", false)
		return
	}
	if llm.KindOf(err) != "" {
		r.end(Failed, CodeModel, err.Error(), llm.IsRetriable(err))
		return
	}
	r.end(Failed, CodeInternal, err.Error(), false)
}

// request builds the model request of a turn.
func (r *run) request(withTools bool) *llm.Request {
	msgs := make([]llm.Message, 0, len(r.history)+len(r.msgs)+1)
	if r.cfg.System != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: r.cfg.System})
	}
	msgs = append(msgs, r.history...)
	msgs = append(msgs, r.msgs...)
	req := &llm.Request{Model: r.cfg.Model, Messages: msgs, Temperature: r.cfg.Temperature, MaxOutputTokens: r.cfg.MaxTokens}
	if withTools && r.cfg.Tools != nil && len(r.cfg.Tools.Tools()) > 0 {
		req.Tools = r.cfg.Tools.LLMTools()
		req.ToolChoice = llm.ToolChoice{Mode: r.cfg.ToolChoice}
		no := false
		req.ParallelToolCalls = &no
	}
	return req
}

// Messages of a finished run are announced one by one; NewMessages lists
// what a run added, for callers that keep the conversation themselves.
func NewMessages(events []Event) []llm.Message {
	var out []llm.Message
	for _, e := range events {
		if e.Type == MessageDone && e.Message != nil {
			out = append(out, *e.Message)
		}
	}
	return out
}

func (r *run) addMessage(m llm.Message) {
	r.msgs = append(r.msgs, m)
	c := m
	r.emit(Event{Type: MessageDone, Message: &c})
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
