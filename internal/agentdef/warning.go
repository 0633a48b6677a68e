package agentdef

import (
	"errors"
	"fmt"
)

// Kinds of definition a Warning is about.
const (
	KindAgent    = "agent"
	KindTool     = "tool"
	KindSkill    = "skill"
	KindViewport = "viewport"
	KindModels   = "models"
)

// Warning is a problem found while loading definitions. Loading never stops
// for one: the definition concerned is skipped (Rejected) or the offending
// part is ignored.
type Warning struct {
	Kind     string // KindAgent, KindTool, KindSkill, KindViewport or KindModels
	File     string // the file or directory concerned
	Field    string // JSON path inside the file ("plain.modelConfig.apiKey", "tools[2].name"), or ""
	Reason   string
	Rejected bool // the whole definition (agent, tool entry, skill, viewport) was skipped
}

// String formats the warning as one log line:
// "agent rejected file=<path> field=<json path> reason=<text>" for a
// rejection, "<kind> warning file=… field=… reason=…" otherwise.
func (w Warning) String() string {
	verb := "warning"
	if w.Rejected {
		verb = "rejected"
	}
	return fmt.Sprintf("%s %s file=%s field=%s reason=%s", w.Kind, verb, w.File, w.Field, w.Reason)
}

// warnings collects Warnings of one kind of definition.
type warnings struct {
	kind string
	list *[]Warning
}

func (ws warnings) warn(file, field, format string, args ...any) {
	*ws.list = append(*ws.list, Warning{Kind: ws.kind, File: file, Field: field, Reason: fmt.Sprintf(format, args...)})
}

func (ws warnings) reject(file, field, format string, args ...any) {
	*ws.list = append(*ws.list, Warning{Kind: ws.kind, File: file, Field: field, Reason: fmt.Sprintf(format, args...),
		Rejected: true})
}

// rejection is a reason to skip a definition, found while checking it.
type rejection struct {
	field, reason string
}

func (r *rejection) Error() string { return r.field + ": " + r.reason }

func rejectf(field, format string, args ...any) error {
	return &rejection{field: field, reason: fmt.Sprintf(format, args...)}
}

// asRejection turns any error into a rejection (field "" when it is not one).
func asRejection(err error) *rejection {
	var r *rejection
	if errors.As(err, &r) {
		return r
	}
	return &rejection{reason: err.Error()}
}

// ErrSyntax is wrapped by the errors of the relaxed JSON converter.
var ErrSyntax = errors.New("relaxed JSON syntax")
