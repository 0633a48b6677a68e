package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/api"
)

// The SubmitResponse statuses (§ 4.1).
const (
	SubmitAccepted  = "accepted"
	SubmitUnmatched = "unmatched"
)

// SubmitResponse is the data of POST /submit (§ 4.1); an unmatched submit
// is still HTTP 200.
type SubmitResponse struct {
	Accepted bool   `json:"accepted"`
	Status   string `json:"status"`
	RunID    string `json:"runId"`
	ToolID   string `json:"toolId"`
	Detail   string `json:"detail"`
}

// handleRunStream serves GET /run/stream?runId=R [EXT] (§§ 2.2, 3.6): the
// run's events with seq > Last-Event-ID (header, else the lastEventId
// parameter, else 0) exactly as first sent, then its live events until the
// terminal one; a finished run sends the remainder and closes.
func (s *Server) handleRunStream(w http.ResponseWriter, r *http.Request) {
	runID := strings.TrimSpace(r.URL.Query().Get("runId"))
	if runID == "" {
		writeValidation(w, map[string]string{"runId": reasonRequired})
		return
	}
	after, err := lastEventID(r)
	if err != nil {
		s.writeReqError(w, r, err)
		return
	}
	if err := s.checkRun(r.Context(), runID); errors.Is(err, ErrRunNotFound) {
		writeError(w, http.StatusNotFound, "Run not found: "+runID, nil)
		return
	} else if err != nil {
		s.writeInternal(w, r, err)
		return
	}
	s.stream(w, r, runID, after)
}

// lastEventID returns the resume point of a reattach: the Last-Event-ID
// header wins over the lastEventId parameter; absent or blank is 0; any
// other value must be an integer ≥ 0 (else 400).
func lastEventID(r *http.Request) (int64, error) {
	name, v := "Last-Event-ID", strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	if v == "" {
		name, v = "lastEventId", strings.TrimSpace(r.URL.Query().Get("lastEventId"))
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || v[0] == '+' {
		return 0, badRequest("%s must be an integer >= 0", name)
	}
	return n, nil
}

// handleSubmit serves POST /submit {runId, toolId, params} (§ 4.1): it
// answers the pending question runId#toolId: a frontend call (params may be
// any JSON value except null), a scope approval "scope:<toolId>"
// (AGENT_PROTOCOL § 5.4) or an edit approval "calls:<toolId>"; a decision
// that does not parse is 400 and the question stays pending.
func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RunID  string          `json:"runId"`
		ToolID string          `json:"toolId"`
		Params json.RawMessage `json:"params"`
	}
	if err := decodeRequestJSON(w, r, &body); err != nil {
		s.writeReqError(w, r, err)
		return
	}
	runID, toolID := strings.TrimSpace(body.RunID), strings.TrimSpace(body.ToolID)
	fields := map[string]string{}
	if runID == "" {
		fields["runId"] = reasonRequired
	}
	if toolID == "" {
		fields["toolId"] = reasonRequired
	}
	if len(body.Params) == 0 || string(body.Params) == "null" {
		fields["params"] = reasonNotNull
	}
	if len(fields) > 0 {
		writeValidation(w, fields)
		return
	}
	if err := s.checkRun(r.Context(), runID); errors.Is(err, ErrRunNotFound) {
		writeOK(w, unmatched(runID, toolID)) // another user's run is not there for this one
		return
	} else if err != nil {
		s.writeInternal(w, r, err)
		return
	}
	answer := s.answerSubmit(runID, toolID, body.Params)
	if !answer.taken {
		if fwd, ok := s.forwardSubmit(r.Context(), runID, toolID, body.Params); ok {
			answer = fwd
		}
	}
	writeJSON(w, answer.status, answer.env)
}

// submitAnswer is the answer to POST /submit: its HTTP status and envelope,
// and whether a wait of this node had the key (an accepted submit, or a
// decision refused as invalid); one no wait had is forwarded to the node
// executing the run (forwardSubmit).
type submitAnswer struct {
	status int
	env    api.Envelope
	taken  bool
}

// answerSubmit answers a submit from the questions this node's runs wait
// on (a frontend tool's params, a scope decision, an edit decision).
func (s *Server) answerSubmit(runID, toolID string, params json.RawMessage) submitAnswer {
	q, ok := s.opts.Waits.Pending(runID, toolID)
	if !ok {
		return okAnswer(unmatched(runID, toolID), false)
	}
	a, err := answerOf(q, params)
	if re, bad := errors.AsType[*reqError](err); bad {
		return submitAnswer{status: re.status, taken: true,
			env: api.Envelope{Code: re.status, Msg: re.msg, Data: struct{}{}}}
	}
	if err != nil || !s.opts.Waits.Answer(runID, toolID, a) {
		return okAnswer(unmatched(runID, toolID), false)
	}
	return okAnswer(accepted(q, runID, toolID), true)
}

// okAnswer is a 200 answer to a submit.
func okAnswer(resp SubmitResponse, taken bool) submitAnswer {
	return submitAnswer{status: http.StatusOK, taken: taken, env: api.Envelope{Code: 0, Msg: api.MsgSuccess, Data: resp}}
}

// unmatched is the answer to a submit that matches no pending wait, worded
// for the kind of wait its toolId names.
func unmatched(runID, toolID string) SubmitResponse {
	what := "frontend tool"
	switch {
	case strings.HasPrefix(toolID, api.ScopeApprovalPrefix):
		what = "scope approval"
	case strings.HasPrefix(toolID, api.CallApprovalPrefix):
		what = "edit approval"
	}
	return SubmitResponse{Accepted: false, Status: SubmitUnmatched, RunID: runID, ToolID: toolID,
		Detail: "No pending " + what + " found for runId=" + runID + ", toolId=" + toolID}
}
