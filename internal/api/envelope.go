package api

import "encoding/json"

// MsgSuccess is the msg of every successful envelope.
const MsgSuccess = "success"

// Envelope is the body of every non-SSE response (§ 1.2): code 0 and msg
// "success" with the payload in Data, or code = the HTTP status, a short
// English msg and Data {} (or the data named by the error table).
type Envelope struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	Data any    `json:"data"`
}

// ValidationData is the data of a 400 "Validation failed" envelope: the
// offending field names with a reason each.
type ValidationData struct {
	Fields map[string]string `json:"fields"`
}

// ActiveRunData is the data of the 400 "Chat has an active run" envelope.
type ActiveRunData struct {
	ActiveRunID string `json:"activeRunId"`
}

// Reference is one entry of QueryRequest.References, stored and echoed as
// sent.
type Reference struct {
	ID        string          `json:"id,omitempty"`
	Type      string          `json:"type,omitempty"`
	Name      string          `json:"name,omitempty"`
	MimeType  string          `json:"mimeType,omitempty"`
	SizeBytes *int64          `json:"sizeBytes,omitempty"`
	URL       string          `json:"url,omitempty"`
	SHA256    string          `json:"sha256,omitempty"`
	Meta      json.RawMessage `json:"meta,omitempty"`
}

// Scene is the client's page context of a query, echoed as an object.
type Scene struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// QueryRequest is the body of POST /query (§ 2.1). Params keeps the raw
// JSON of each value so numbers and objects are echoed unchanged.
type QueryRequest struct {
	Message    string                     `json:"message"`
	ChatID     string                     `json:"chatId,omitempty"`
	AgentKey   string                     `json:"agentKey,omitempty"`
	RequestID  string                     `json:"requestId,omitempty"`
	Role       string                     `json:"role,omitempty"`
	References []Reference                `json:"references,omitempty"`
	Params     map[string]json.RawMessage `json:"params,omitempty"`
	Scene      *Scene                     `json:"scene,omitempty"`
	Stream     *bool                      `json:"stream,omitempty"`
}
