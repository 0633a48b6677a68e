package tool

import "encoding/json"

// EditPreview is what a book edit call would do, changing nothing: the
// preview of an edit approval (agent.Previewer, protocol.Previewer) as the
// JSON object {pointer, op, oldMarkdown, newMarkdown}. It is written by the
// book tools (booktools.Preview) and the solution protocol's edit
// activities (bookprotocol), and read by whoever shows an approval (the
// command line's prompt, the server's confirm call). The fields are in name
// order: json.Marshal writes them as a map of them would be.
type EditPreview struct {
	NewMarkdown string `json:"newMarkdown"`
	OldMarkdown string `json:"oldMarkdown"`
	Op          string `json:"op"`
	Pointer     string `json:"pointer"`
}

// Pairs lists the preview's keys and values in the order the solution
// protocol writes them (pointer, op, oldMarkdown, newMarkdown), for an
// ordered object (agentctx.NewObject).
func (p EditPreview) Pairs() []any {
	return []any{"pointer", p.Pointer, "op", p.Op, "oldMarkdown", p.OldMarkdown, "newMarkdown", p.NewMarkdown}
}

// ParseEditPreview reads the preview of a held call; false when it is not
// an edit's (the tool has no preview, or it names neither an op nor a
// pointer): the call's parameters are shown instead.
func ParseEditPreview(raw json.RawMessage) (EditPreview, bool) {
	var p EditPreview
	if json.Unmarshal(raw, &p) != nil || (p.Op == "" && p.Pointer == "") {
		return EditPreview{}, false
	}
	return p, true
}
