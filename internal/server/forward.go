package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// forwardTimeout bounds the wait for the node executing a run to answer a
// forwarded submit.
const forwardTimeout = 5 * time.Second

// errNotForwarded means a submit is not forwarded: the run does not run on
// another node (or that node did not answer in time).
var errNotForwarded = errors.New("server: the run does not run on another node")

// The messages between nodes about a run (store.Note.Body): a submit no
// wait of the node that got it had, forwarded to every node, and the answer
// of the node executing the run.
type clusterMessage struct {
	Submit *forwardedSubmit `json:"submit,omitempty"`
	Answer *submitReply     `json:"answer,omitempty"`
}

type forwardedSubmit struct {
	ID     string          `json:"id"`
	ToolID string          `json:"toolId"`
	Params json.RawMessage `json:"params"`
}

type submitReply struct {
	ID       string          `json:"id"`
	Status   int             `json:"status"`
	Envelope json.RawMessage `json:"envelope"`
}

// forwardSubmit answers a submit through the node executing the run, when
// that is another node of the cluster: ok is false when it is not (or that
// node did not answer in time), and the local answer stands. Params too
// long for a note get 400.
func (s *Server) forwardSubmit(ctx context.Context, runID, toolID string, params json.RawMessage) (submitAnswer, bool) {
	reply, err := s.opts.Runs.forwardSubmit(ctx, runID, toolID, params)
	switch {
	case errors.Is(err, store.ErrInvalid):
		return submitAnswer{status: http.StatusBadRequest, env: api.Envelope{Code: http.StatusBadRequest,
			Msg: "params are too long to reach the server running the run", Data: struct{}{}}}, true
	case err != nil:
		if !errors.Is(err, errNotForwarded) {
			s.opts.Logger.Warn("forwarding a submit to the node of its run failed", "run", runID, "err", err)
		}
		return submitAnswer{}, false
	}
	var env api.Envelope
	var data json.RawMessage
	env.Data = &data
	if err := json.Unmarshal(reply.Envelope, &env); err != nil {
		s.opts.Logger.Warn("a forwarded submit got an unreadable answer", "run", runID, "err", err)
		return submitAnswer{}, false
	}
	env.Data = data
	return submitAnswer{status: reply.Status, env: env, taken: true}, true
}

// answerForwarded answers a submit forwarded by another node for a run of
// this node, as answerSubmit does.
func (s *Server) answerForwarded(runID, toolID string, params json.RawMessage) (int, json.RawMessage) {
	a := s.answerSubmit(runID, toolID, params)
	b, err := json.Marshal(a.env)
	if err != nil {
		return http.StatusInternalServerError, json.RawMessage(`{"code":500,"msg":"Internal server error","data":{}}`)
	}
	return a.status, b
}

// forwardSubmit sends a submit to the node executing run runID and waits
// for its answer (forwardTimeout). errNotForwarded when there is no such
// node: no cluster, the run runs here or not at all, or no answer came.
func (m *RunManager) forwardSubmit(ctx context.Context, runID, toolID string, params json.RawMessage) (submitReply, error) {
	if m.cl == nil || m.runsHere(runID) {
		return submitReply{}, errNotForwarded
	}
	run, err := m.st.GetRun(ctx, runID)
	if err != nil || run.Status != store.RunRunning {
		return submitReply{}, errNotForwarded
	}
	id := uuidV4()
	ch := m.cl.await(id)
	defer m.cl.forget(id)
	body, err := json.Marshal(clusterMessage{Submit: &forwardedSubmit{ID: id, ToolID: toolID, Params: params}})
	if err != nil {
		return submitReply{}, err
	}
	if err := m.cl.st.Announce(ctx, store.Note{RunID: runID, Body: body}); err != nil {
		return submitReply{}, err
	}
	t := time.NewTimer(forwardTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r, nil
	case <-t.C:
		return submitReply{}, errNotForwarded
	case <-ctx.Done():
		return submitReply{}, ctx.Err()
	}
}

// runsHere reports whether run runID runs on this node.
func (m *RunManager) runsHere(runID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runs[runID] != nil
}

// answerSubmits sets how this node answers the submits other nodes
// forward for its runs (the server's /submit logic).
func (m *RunManager) answerSubmits(fn func(runID, toolID string, params json.RawMessage) (int, json.RawMessage)) {
	if m.cl != nil {
		m.cl.mu.Lock()
		m.cl.answer = fn
		m.cl.mu.Unlock()
	}
}

// message handles a note carrying a clusterMessage: a forwarded submit for
// a run of this node is answered (on a goroutine of its own, the feed's
// must not block), an answer goes to the request waiting for it.
func (c *cluster) message(n store.Note) {
	var msg clusterMessage
	if json.Unmarshal(n.Body, &msg) != nil {
		return
	}
	switch {
	case msg.Submit != nil:
		c.mu.Lock()
		answer := c.answer
		c.mu.Unlock()
		if answer == nil || !c.m.runsHere(n.RunID) {
			return
		}
		req := *msg.Submit
		go func() {
			status, env := answer(n.RunID, req.ToolID, req.Params)
			body, _ := json.Marshal(clusterMessage{Answer: &submitReply{ID: req.ID, Status: status, Envelope: env}})
			if err := c.st.Announce(context.Background(), store.Note{RunID: n.RunID, Body: body}); err != nil {
				c.log.Warn("cluster: answering a forwarded submit failed", "run", n.RunID, "err", err)
			}
		}()
	case msg.Answer != nil:
		c.mu.Lock()
		ch := c.waiting[msg.Answer.ID]
		delete(c.waiting, msg.Answer.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- *msg.Answer
		}
	}
}

// await registers a forwarded request waiting for its answer.
func (c *cluster) await(id string) <-chan submitReply {
	ch := make(chan submitReply, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	return ch
}

// forget drops a request of await.
func (c *cluster) forget(id string) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}
