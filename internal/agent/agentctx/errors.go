package agentctx

import "fmt"

// Code is a protocol error or warning code (AGENT_PROTOCOL §4.9, §1.6).
type Code string

// Error and warning codes produced by this package.
const (
	// CodeMessageInvalid marks a load error in a context message: both value
	// forms, both names of an alias, a malformed field. The spec only says
	// "load error"; this code is this package's name for it.
	CodeMessageInvalid Code = "message_invalid"
	// CodePathInvalid marks a string that is not a path (§1.6 grammar) where
	// a path is required for reading.
	CodePathInvalid           Code = "path_invalid"
	CodePathNotWritable       Code = "path_not_writable"
	CodeMethodUnsupported     Code = "method_unsupported"
	CodeExpressionUnsupported Code = "expression_unsupported"
	CodeAdvisorOnConflict     Code = "advisor_on_conflict"
	CodeUnresolvedReference   Code = "unresolved_reference"

	// WarnPushOnNonArray: a push met a non-array; the write was skipped.
	WarnPushOnNonArray Code = "push_on_non_array"
	// WarnPathNotTraversable: a write had to descend through an array with a
	// segment that is not a valid index; the write was skipped. Not named by
	// the spec.
	WarnPathNotTraversable Code = "path_not_traversable"
)

// Error is a typed protocol error. Compare with errors.Is against the
// sentinels below (matching is by code) or read Code via errors.As.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "agentctx: " + string(e.Code)
	}
	return "agentctx: " + string(e.Code) + ": " + e.Message
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrMessageInvalid        = &Error{Code: CodeMessageInvalid}
	ErrPathInvalid           = &Error{Code: CodePathInvalid}
	ErrPathNotWritable       = &Error{Code: CodePathNotWritable}
	ErrMethodUnsupported     = &Error{Code: CodeMethodUnsupported}
	ErrExpressionUnsupported = &Error{Code: CodeExpressionUnsupported}
	ErrAdvisorOnConflict     = &Error{Code: CodeAdvisorOnConflict}
	ErrUnresolvedReference   = &Error{Code: CodeUnresolvedReference}
)

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Warning is a non-fatal finding of a fold, such as a skipped push.
type Warning struct {
	Code     Code
	Kind     string
	Instance string
	Path     string // dotted path of the write, "" for the root
	Index    int    // index of the message in the context
}
