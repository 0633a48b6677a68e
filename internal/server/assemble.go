package server

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/tool"
)

// Assembler turns the events of one agent run into the ordered event stream
// of PLATFORM_API § 3.3: bootstrap events, at most one open text block with
// per-run ids, the tool lifecycle (start, args, exactly one end, exactly one
// result), document edits, and one terminal event after which nothing is
// emitted. It numbers the events from 1 and stamps them with the clock's
// epoch milliseconds. It is not safe for concurrent use: feed it from the
// goroutine that iterates the run.
type Assembler struct {
	// AgentKey is run.start's agentKey, the resolved agent of the run; when
	// empty the query's agentKey is used.
	AgentKey string
	// EditTarget names the document and the revision an applied edit
	// produced, for document.edit. When nil, documentId is the edit's Book
	// and revision its Revision.
	EditTarget func(edit *tool.Edit) (docID string, revision int)

	runID, chatID string
	requestID     string // the run's requestId (request.submit)
	task          string // the active task's id, "" outside a task
	clock         func() time.Time
	emit          func(api.Event)
	seq           int64

	block      string // "", api.TypeReasoningDelta or api.TypeContentDelta
	blockID    string
	nReasoning int
	nContent   int
	turnCall   bool             // the current model turn has opened a call
	calls      []*call          // every call of the run, in start order
	byID       map[string]*call // calls by toolId
	ended      bool             // a terminal event was emitted
}

// call is the lifecycle state of one tool call.
type call struct {
	id, name string
	action   bool // action.* events instead of tool.*
	chunks   int
	ended    bool
	result   bool
}

// NewAssembler returns the assembler of run runID in chat chatID; every
// event goes to emit as soon as it is complete.
func NewAssembler(runID, chatID string, clock func() time.Time, emit func(api.Event)) *Assembler {
	return &Assembler{runID: runID, chatID: chatID, clock: clock, emit: emit, byID: map[string]*call{}}
}

// Bootstrap emits request.query, chat.start (only when chatStart is not nil,
// i.e. in the chat's first run) and run.start (§ 3.3 rule 1). Call it once,
// before the first agent event.
func (a *Assembler) Bootstrap(query api.RequestQuery, chatStart *api.ChatStart) {
	a.requestID = query.RequestID
	a.send(api.TypeRequestQuery, query)
	if chatStart != nil {
		a.send(api.TypeChatStart, *chatStart)
	}
	key := a.AgentKey
	if key == "" {
		key = query.AgentKey
	}
	a.send(api.TypeRunStart, api.RunStart{RunID: a.runID, ChatID: a.chatID, AgentKey: key})
}

// Ended reports whether the terminal event has been emitted. After an
// assembler violation (Fail) the caller should stop the run.
func (a *Assembler) Ended() bool { return a.ended }

// Complete ends the run with run.complete and finishReason reason (stop or
// timeout) after closing the open block and giving every call its end and
// result (§ 3.3 rule 8).
func (a *Assembler) Complete(reason string) { a.CompleteLedger(reason, nil) }

// CompleteLedger is Complete with a ledger: run.complete of a protocol run
// that a limit stopped (finishReason max_turns or budget, AGENT_PROTOCOL
// § 4.8 LM5). A nil ledger is omitted.
func (a *Assembler) CompleteLedger(reason string, ledger *api.Ledger) {
	if a.ended {
		return
	}
	a.finish("the run ended")
	a.send(api.TypeRunComplete, api.RunComplete{RunID: a.runID, FinishReason: reason, Ledger: ledger})
	a.ended = true
}

// Fail ends the run with run.error after closing the open block and giving
// every open call its end and every call without result a skipped result
// (§ 3.5).
func (a *Assembler) Fail(info api.ErrorInfo) {
	if a.ended {
		return
	}
	a.finish("the run failed (" + info.Code + ")")
	if a.task != "" { // § 3.5: task.fail with the same code before run.error
		a.send(api.TypeTaskFail, api.TaskFail{TaskID: a.task, Error: api.TaskError{Code: info.Code, Message: info.Message}})
		a.task = ""
	}
	a.send(api.TypeRunError, api.RunError{RunID: a.runID, Error: info})
	a.ended = true
}

// text streams one reasoning or content delta (rules 2 and 3).
func (a *Assembler) text(kind, delta string) {
	if delta == "" || a.turnCall {
		return // empty, or text after a tool call of this turn: dropped
	}
	if a.block != kind {
		a.closeBlock()
		a.openBlock(kind)
	}
	if kind == api.TypeReasoningDelta {
		a.send(kind, api.ReasoningDelta{ReasoningID: a.blockID, Delta: delta})
		return
	}
	a.send(kind, api.ContentDelta{ContentID: a.blockID, Delta: delta})
}

// openBlock opens a text block with the next id of its kind (§ 1.3).
func (a *Assembler) openBlock(kind string) {
	a.block = kind
	if kind == api.TypeReasoningDelta {
		a.nReasoning++
		a.blockID = a.runID + "_r_" + strconv.Itoa(a.nReasoning)
		a.send(api.TypeReasoningStart, api.ReasoningStart{ReasoningID: a.blockID, RunID: a.runID, TaskID: a.task})
		return
	}
	a.nContent++
	a.blockID = a.runID + "_c_" + strconv.Itoa(a.nContent)
	a.send(api.TypeContentStart, api.ContentStart{ContentID: a.blockID, RunID: a.runID, TaskID: a.task})
}

// closeBlock ends the open text block, if any.
func (a *Assembler) closeBlock() {
	switch a.block {
	case api.TypeReasoningDelta:
		a.send(api.TypeReasoningEnd, api.ReasoningEnd{ReasoningID: a.blockID})
	case api.TypeContentDelta:
		a.send(api.TypeContentEnd, api.ContentEnd{ContentID: a.blockID})
	}
	a.block, a.blockID = "", ""
}

// endTurn closes everything a model turn opened; the next turn starts new
// block ids and may stream text again.
func (a *Assembler) endTurn() {
	a.closeBlock()
	a.endOpenCalls()
	a.turnCall = false
}

// toolArgs streams one non-empty argument fragment; a fragment for an
// unknown or ended call is an upstream protocol violation.
func (a *Assembler) toolArgs(id, delta string) {
	if delta == "" {
		return
	}
	a.closeBlock()
	c := a.byID[id]
	if c == nil || c.ended {
		a.Fail(api.ErrorInfo{Code: api.CodeModelError, Message: fmt.Sprintf("argument fragment for a call that is not open: %q", id)})
		return
	}
	if c.action {
		a.send(api.TypeActionArgs, api.ActionArgs{ActionID: id, Delta: delta})
	} else {
		a.send(api.TypeToolArgs, api.ToolArgs{ToolID: id, Delta: delta, ChunkIndex: c.chunks})
	}
	c.chunks++
}

// endCall emits tool.end once per call.
func (a *Assembler) endCall(c *call) {
	if c.ended {
		return
	}
	c.ended = true
	if c.action {
		a.send(api.TypeActionEnd, api.ActionEnd{ActionID: c.id})
		return
	}
	a.send(api.TypeToolEnd, api.ToolEnd{ToolID: c.id})
}

// endOpenCalls ends every call still open, in start order.
func (a *Assembler) endOpenCalls() {
	for _, c := range a.calls {
		a.endCall(c)
	}
}

// documentEdit emits document.edit for one applied edit (rule 5).
func (a *Assembler) documentEdit(toolID string, e *tool.Edit) {
	a.closeBlock()
	a.endOpenCalls()
	if e == nil {
		return
	}
	docID, rev := e.Book, e.Revision
	if a.EditTarget != nil {
		docID, rev = a.EditTarget(e)
	}
	a.send(api.TypeDocumentEdit, api.DocumentEdit{DocumentID: docID, RunID: a.runID, ToolID: toolID, TaskID: a.task, Revision: rev,
		Op: e.Op, Pointer: e.Pointer, NewPointer: e.NewPointer, Before: e.Before, After: e.After})
}

// finish closes the open block and gives every call its end and a skipped
// result when it has none.
func (a *Assembler) finish(why string) {
	a.closeBlock()
	a.endOpenCalls()
	for _, c := range a.calls {
		if !c.result {
			c.result = true
			res := tool.Errorf(api.ToolCodeSkipped, "not executed: %s", why)
			if c.action {
				a.send(api.TypeActionResult, api.ActionResult{ActionID: c.id, Result: actionResult(ResultText(c.name, &res))})
				continue
			}
			a.send(api.TypeToolResult, api.ToolResult{ToolID: c.id, Result: ResultText(c.name, &res)})
		}
	}
}

// ResultText is the tool.result string of a result: its text, or for an
// error result the § 7.1 JSON {"tool","ok":false,"code","error"}.
func ResultText(name string, r *tool.Result) string {
	if r == nil {
		return ""
	}
	if !r.IsError {
		return r.Text
	}
	code := r.Code
	if code == "" {
		code = api.ToolCodeFailed
	}
	b, _ := api.Encode(api.ToolError{Tool: name, OK: false, Code: code, Error: r.Text}) // strings only: cannot fail
	return string(b)
}

// send numbers, stamps and emits one event.
func (a *Assembler) send(typ string, payload any) {
	a.seq++
	a.emit(api.Event{Seq: a.seq, Type: typ, Timestamp: a.clock().UnixMilli(), Payload: payload})
}
